package customfield_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/customfield"
)

func ptr[T any](v T) *T { return &v }

// fields lists the fields p has messages for, sorted.
func fields(p customfield.Problems) []string {
	out := make([]string, 0, len(p))
	for f := range p {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// specCase is a case for a function making a spec from an input: the
// spec it wants, or the fields it wants problems for.
type specCase struct {
	name       string
	in         customfield.Input
	want       customfield.Spec
	wantFields []string
}

// runSpecCases runs each case against spec in a parallel subtest: the
// fields with problems must be the wanted ones and, when none are wanted,
// the spec the wanted one.
func runSpecCases(t *testing.T, tests []specCase, spec func(customfield.Problems, customfield.Input) customfield.Spec) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := customfield.Problems{}
			got := spec(p, tt.in)
			if got, want := fields(p), tt.wantFields; !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("fields %v, want %v", got, want)
			}
			if tt.wantFields == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("spec (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []specCase{
		{name: "string", in: customfield.Input{Key: ptr("note"), Label: ptr(" Note "), Type: ptr("string")},
			want: customfield.Spec{Key: "note", Label: "Note", Type: customfield.String}},
		{name: "enum required", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum"), Options: []string{"gold", "silver"}, Required: ptr(true)},
			want: customfield.Spec{Key: "tier", Label: "Tier", Type: customfield.Enum, Options: []string{"gold", "silver"}, Required: true}},
		{name: "nothing", in: customfield.Input{}, wantFields: []string{"key", "label", "type"}},
		{name: "upper-case key", in: customfield.Input{Key: ptr("Tier"), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "key starting with a digit", in: customfield.Input{Key: ptr("1tier"), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "key of 64", in: customfield.Input{Key: ptr("k" + strings.Repeat("a", 63)), Label: ptr("Tier"), Type: ptr("string")},
			want: customfield.Spec{Key: "k" + strings.Repeat("a", 63), Label: "Tier", Type: customfield.String}},
		{name: "key of 65", in: customfield.Input{Key: ptr("k" + strings.Repeat("a", 64)), Label: ptr("Tier"), Type: ptr("string")}, wantFields: []string{"key"}},
		{name: "unknown type", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("money")}, wantFields: []string{"type"}},
		{name: "enum without options", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum")}, wantFields: []string{"options"}},
		{name: "enum with 101 options", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum"), Options: make([]string, 101)}, wantFields: []string{"options"}},
		{name: "enum with duplicate and empty options", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("enum"), Options: []string{"a", "a", ""}},
			wantFields: []string{"options.1", "options.2"}},
		{name: "options on a string", in: customfield.Input{Key: ptr("tier"), Label: ptr("Tier"), Type: ptr("string"), Options: []string{"a"}}, wantFields: []string{"options"}},
		{name: "label too long", in: customfield.Input{Key: ptr("tier"), Label: ptr(strings.Repeat("l", 192)), Type: ptr("string")}, wantFields: []string{"label"}},
	}
	runSpecCases(t, tests, customfield.New)
}

func TestReplace(t *testing.T) {
	t.Parallel()
	cur := customfield.Spec{Key: "tier", Label: "Tier", Type: customfield.Enum, Options: []string{"gold"}, Required: true}
	tests := []specCase{
		{name: "replace mutable parts", in: customfield.Input{Label: ptr("Level"), Options: []string{"gold", "bronze"}},
			want: customfield.Spec{Key: "tier", Label: "Level", Type: customfield.Enum, Options: []string{"gold", "bronze"}}},
		{name: "same key and type may be sent", in: customfield.Input{Key: ptr("tier"), Type: ptr("enum"), Label: ptr("Tier"), Options: []string{"gold"}, Required: ptr(true)},
			want: cur},
		{name: "key change", in: customfield.Input{Key: ptr("level"), Label: ptr("Tier"), Options: []string{"gold"}}, wantFields: []string{"key"}},
		{name: "type change", in: customfield.Input{Type: ptr("string"), Label: ptr("Tier"), Options: []string{"gold"}}, wantFields: []string{"type"}},
		{name: "label missing", in: customfield.Input{Options: []string{"gold"}}, wantFields: []string{"label"}},
	}
	runSpecCases(t, tests, cur.Replace)
}

func TestSetCheck(t *testing.T) {
	t.Parallel()
	set := customfield.NewSet([]customfield.Spec{
		{Key: "tier", Type: customfield.Enum, Options: []string{"gold", "silver"}, Required: true},
		{Key: "note", Type: customfield.String},
		{Key: "seats", Type: customfield.Integer},
		{Key: "score", Type: customfield.Number},
		{Key: "vip", Type: customfield.Boolean},
		{Key: "since", Type: customfield.Date},
	})
	values := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	tests := []struct {
		name       string
		in         map[string]json.RawMessage
		want       map[string]json.RawMessage
		wantFields []string
	}{
		{name: "every type", in: values("tier", `"gold"`, "note", `"hi"`, "seats", `12`, "score", `1.5e2`, "vip", `true`, "since", `"2026-01-31"`),
			want: values("tier", `"gold"`, "note", `"hi"`, "seats", `12`, "score", `1.5e2`, "vip", `true`, "since", `"2026-01-31"`)},
		{name: "compacted and null dropped", in: values("tier", ` "silver" `, "note", `null`), want: values("tier", `"silver"`)},
		{name: "unknown key", in: values("tier", `"gold"`, "colour", `"red"`), wantFields: []string{"custom_fields.colour"}},
		{name: "missing required", in: values(), wantFields: []string{"custom_fields.tier"}},
		{name: "null required", in: values("tier", `null`), wantFields: []string{"custom_fields.tier"}},
		{name: "not an option", in: values("tier", `"bronze"`), wantFields: []string{"custom_fields.tier"}},
		{name: "wrong types", in: values("tier", `"gold"`, "note", `1`, "seats", `1.5`, "score", `"1"`, "vip", `"yes"`, "since", `"31/01/2026"`),
			wantFields: []string{"custom_fields.note", "custom_fields.score", "custom_fields.seats", "custom_fields.since", "custom_fields.vip"}},
		{name: "integer beyond 64 bits", in: values("tier", `"gold"`, "seats", `99999999999999999999`), wantFields: []string{"custom_fields.seats"}},
		{name: "impossible date", in: values("tier", `"gold"`, "since", `"2026-02-30"`), wantFields: []string{"custom_fields.since"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := customfield.Problems{}
			got := set.Check(p, tt.in)
			if f := fields(p); !slices.Equal(f, tt.wantFields) && len(f)+len(tt.wantFields) > 0 {
				t.Fatalf("fields %v, want %v (%v)", f, tt.wantFields, p)
			}
			if tt.wantFields == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("values (-want +got):\n%s", diff)
				}
			}
		})
	}
}
