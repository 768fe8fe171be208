package contact_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
)

func boolPtr(b bool) *bool { return &b }

// definitionCase is a case for a function making a definition from an
// input: the definition it wants, or the fields it wants errors for.
type definitionCase struct {
	name       string
	in         contact.DefinitionInput
	want       contact.Definition
	wantFields []string
}

// runDefinitionCases runs each case against define in a parallel subtest:
// the fields in error must be the wanted ones or, when none are wanted,
// the definition the wanted one.
func runDefinitionCases(t *testing.T, tests []definitionCase, define func(contact.DefinitionInput) (contact.Definition, error)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := define(tt.in)
			if tt.wantFields != nil {
				if diff := cmp.Diff(tt.wantFields, fieldsOf(t, err), sorted()); diff != "" {
					t.Errorf("fields (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("definition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewDefinition(t *testing.T) {
	t.Parallel()
	tests := []definitionCase{
		{name: "string", in: contact.DefinitionInput{Key: ptr("note"), Label: ptr(" Note "), Type: ptr("string")},
			want: contact.Definition{Key: "note", Label: "Note", Type: contact.TypeString}},
		{name: "enum required", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum"), Options: []string{"gold", "silver"}, Required: boolPtr(true)},
			want: contact.Definition{Key: "tier", Label: "Tier", Type: contact.TypeEnum, Options: []string{"gold", "silver"}, Required: true}},
		{name: "nothing", in: contact.DefinitionInput{}, wantFields: []string{"key", "label", "type"}},
		{name: "bad key", in: contact.DefinitionInput{Key: ptr("Tier"), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "key starting with a digit", in: contact.DefinitionInput{Key: ptr("1tier"), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "key of 65", in: contact.DefinitionInput{Key: ptr("k" + strings.Repeat("a", 64)), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "unknown type", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("money")}, wantFields: []string{"type"}},
		{name: "enum without options", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum")}, wantFields: []string{"options"}},
		{name: "enum with duplicate option", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum"), Options: []string{"a", "a"}}, wantFields: []string{"options.1"}},
		{name: "options on a string", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("string"), Options: []string{"a"}}, wantFields: []string{"options"}},
		{name: "label too long", in: contact.DefinitionInput{Key: ptr("tier"), Label: ptr(strings.Repeat("l", 192)), Type: ptr("string")}, wantFields: []string{"label"}},
	}
	runDefinitionCases(t, tests, contact.NewDefinition)
}

func TestReplaceDefinition(t *testing.T) {
	t.Parallel()
	cur := contact.Definition{ID: "D", Key: "tier", Label: "Tier", Type: contact.TypeEnum, Options: []string{"gold"}, Required: true}
	tests := []definitionCase{
		{name: "replace mutable fields", in: contact.DefinitionInput{Label: ptr("Level"), Options: []string{"gold", "bronze"}},
			want: contact.Definition{ID: "D", Key: "tier", Label: "Level", Type: contact.TypeEnum, Options: []string{"gold", "bronze"}}},
		{name: "same key and type may be sent", in: contact.DefinitionInput{Key: ptr("tier"), Type: ptr("enum"), Label: ptr("Tier"), Options: []string{"gold"}, Required: boolPtr(true)},
			want: cur},
		{name: "key change", in: contact.DefinitionInput{Key: ptr("level"), Label: ptr("Tier"), Options: []string{"gold"}}, wantFields: []string{"key"}},
		{name: "type change", in: contact.DefinitionInput{Type: ptr("string"), Label: ptr("Tier"), Options: []string{"gold"}}, wantFields: []string{"type"}},
		{name: "label missing", in: contact.DefinitionInput{Options: []string{"gold"}}, wantFields: []string{"label"}},
	}
	runDefinitionCases(t, tests, cur.Replace)
}

func TestTransitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from    contact.State
		action  contact.Action
		want    contact.State
		wantErr string
	}{
		{contact.StateActive, contact.ActionDelete, contact.StateDeleted, ""},
		{contact.StateDeleted, contact.ActionRestore, contact.StateActive, ""},
		{contact.StateActive, contact.ActionRestore, "", "active -> active"},
		{contact.StateDeleted, contact.ActionDelete, "", "deleted -> deleted"},
	}
	for _, tt := range tests {
		got, err := contact.Transition(tt.from, tt.action)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("Transition(%s, %s) = %s, %v; want %s", tt.from, tt.action, got, err, tt.want)
			}
			continue
		}
		te, ok := err.(*contact.TransitionError)
		if !ok || string(te.From)+" -> "+string(te.To) != tt.wantErr {
			t.Errorf("Transition(%s, %s) error = %v, want %q", tt.from, tt.action, err, tt.wantErr)
		}
	}
}
