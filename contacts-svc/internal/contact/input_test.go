package contact_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
)

func ptr(s string) *string { return &s }

func rules() contact.Rules {
	return contact.Rules{Region: "US", Definitions: contact.NewDefinitions([]contact.Definition{
		{Key: "tier", Type: contact.TypeEnum, Options: []string{"gold", "silver"}, Required: true},
		{Key: "seats", Type: contact.TypeInteger},
		{Key: "score", Type: contact.TypeNumber},
		{Key: "vip", Type: contact.TypeBoolean},
		{Key: "since", Type: contact.TypeDate},
		{Key: "note", Type: contact.TypeString},
	})}
}

func custom(kv ...string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	return m
}

// fieldsOf returns the field names of a validation error.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *contact.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	var names []string
	for f := range ve.Fields {
		names = append(names, f)
	}
	return names
}

func TestValidate(t *testing.T) {
	t.Parallel()
	gold := custom("tier", `"gold"`)
	tests := []struct {
		name       string
		in         contact.Input
		want       contact.Fields
		wantFields []string
	}{
		{name: "minimal", in: contact.Input{Phone: ptr("(415) 555-2671"), CustomFields: gold},
			want: contact.Fields{Phone: "+14155552671", CustomFields: gold}},
		{name: "trimmed, empty strings are null",
			in:   contact.Input{Phone: ptr("+14155552671"), FirstName: ptr("  Ada "), LastName: ptr(""), Email: ptr(" "), ExternalID: ptr(" crm-1 "), CustomFields: gold},
			want: contact.Fields{Phone: "+14155552671", FirstName: ptr("Ada"), ExternalID: ptr("crm-1"), CustomFields: gold}},
		{name: "every custom type", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom(
			"tier", `"silver"`, "seats", `12`, "score", `4.5`, "vip", `true`, "since", `"2024-02-29"`, "note", `"hi"`)},
			want: contact.Fields{Phone: "+14155552671", CustomFields: custom(
				"tier", `"silver"`, "seats", `12`, "score", `4.5`, "vip", `true`, "since", `"2024-02-29"`, "note", `"hi"`)}},
		{name: "null custom value is dropped", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom("tier", `"gold"`, "note", `null`)},
			want: contact.Fields{Phone: "+14155552671", CustomFields: gold}},
		{name: "missing phone", in: contact.Input{CustomFields: gold}, wantFields: []string{"phone"}},
		{name: "blank phone", in: contact.Input{Phone: ptr("  "), CustomFields: gold}, wantFields: []string{"phone"}},
		{name: "unparseable phone", in: contact.Input{Phone: ptr("call me"), CustomFields: gold}, wantFields: []string{"phone"}},
		{name: "invalid phone", in: contact.Input{Phone: ptr("+1415555267"), CustomFields: gold}, wantFields: []string{"phone"}},
		{name: "email not an email", in: contact.Input{Phone: ptr("+14155552671"), Email: ptr("ada@"), CustomFields: gold}, wantFields: []string{"email"}},
		{name: "email with display name", in: contact.Input{Phone: ptr("+14155552671"), Email: ptr("Ada <ada@example.com>"), CustomFields: gold}, wantFields: []string{"email"}},
		{name: "first name over 100", in: contact.Input{Phone: ptr("+14155552671"), FirstName: ptr(strings.Repeat("a", 101)), CustomFields: gold}, wantFields: []string{"first_name"}},
		{name: "last name over 100", in: contact.Input{Phone: ptr("+14155552671"), LastName: ptr(strings.Repeat("é", 101)), CustomFields: gold}, wantFields: []string{"last_name"}},
		{name: "external id over 191", in: contact.Input{Phone: ptr("+14155552671"), ExternalID: ptr(strings.Repeat("x", 192)), CustomFields: gold}, wantFields: []string{"external_id"}},
		{name: "unknown custom key", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom("tier", `"gold"`, "colour", `"red"`)}, wantFields: []string{"custom_fields.colour"}},
		{name: "missing required", in: contact.Input{Phone: ptr("+14155552671")}, wantFields: []string{"custom_fields.tier"}},
		{name: "null required", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom("tier", `null`)}, wantFields: []string{"custom_fields.tier"}},
		{name: "enum value not an option", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom("tier", `"bronze"`)}, wantFields: []string{"custom_fields.tier"}},
		{name: "wrong types", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom(
			"tier", `"gold"`, "seats", `1.5`, "score", `"4"`, "vip", `"yes"`, "since", `"2023-02-29"`, "note", `5`)},
			wantFields: []string{"custom_fields.note", "custom_fields.score", "custom_fields.seats", "custom_fields.since", "custom_fields.vip"}},
		{name: "integer too large", in: contact.Input{Phone: ptr("+14155552671"), CustomFields: custom("tier", `"gold"`, "seats", `99999999999999999999`)}, wantFields: []string{"custom_fields.seats"}},
		{name: "every problem at once", in: contact.Input{Email: ptr("nope"), FirstName: ptr(strings.Repeat("a", 101))},
			wantFields: []string{"custom_fields.tier", "email", "first_name", "phone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rules().Validate(tt.in)
			checkFields(t, tt.want, tt.wantFields, got, err)
		})
	}
}

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	cur := contact.Fields{Phone: "+14155552671", FirstName: ptr("Ada"), Email: ptr("ada@example.com"),
		CustomFields: custom("tier", `"gold"`, "colour", `"red"`)} // colour: a definition deleted since
	tests := []struct {
		name       string
		patch      contact.Patch
		want       contact.Fields
		wantFields []string
	}{
		{name: "empty patch keeps everything", patch: contact.Patch{}, want: cur},
		{name: "name changes, stale custom fields untouched", patch: contact.Patch{LastName: contact.Of("Lovelace")},
			want: contact.Fields{Phone: "+14155552671", FirstName: ptr("Ada"), LastName: ptr("Lovelace"), Email: ptr("ada@example.com"), CustomFields: cur.CustomFields}},
		{name: "null clears email", patch: contact.Patch{Email: contact.Nullable[string]{Set: true, Null: true}},
			want: contact.Fields{Phone: "+14155552671", FirstName: ptr("Ada"), CustomFields: cur.CustomFields}},
		{name: "phone renormalised", patch: contact.Patch{Phone: contact.Of("415-555-2672")},
			want: contact.Fields{Phone: "+14155552672", FirstName: ptr("Ada"), Email: ptr("ada@example.com"), CustomFields: cur.CustomFields}},
		{name: "null phone", patch: contact.Patch{Phone: contact.Nullable[string]{Set: true, Null: true}}, wantFields: []string{"phone"}},
		{name: "custom fields sent are checked", patch: contact.Patch{CustomFields: contact.Of(custom("tier", `"gold"`, "colour", `"red"`))},
			wantFields: []string{"custom_fields.colour"}},
		{name: "null custom fields hit required", patch: contact.Patch{CustomFields: contact.Nullable[map[string]json.RawMessage]{Set: true, Null: true}},
			wantFields: []string{"custom_fields.tier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rules().ApplyPatch(cur, tt.patch)
			checkFields(t, tt.want, tt.wantFields, got, err)
		})
	}
}

func TestValidEmail(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"ada@example.com": true, "a.b+tag@sub.example.co.uk": true,
		"ada@localhost": false, "ada": false, "@example.com": false, "ada@example.": false,
		"ada@.com": false, "ada @example.com": false, "<ada@example.com>": false,
	} {
		if got := contact.ValidEmail(in); got != want {
			t.Errorf("ValidEmail(%q) = %v, want %v", in, got, want)
		}
	}
}

// checkFields compares the fields a rejected input names with wantFields,
// or, when wantFields is nil, the accepted fields with want.
func checkFields(t *testing.T, want contact.Fields, wantFields []string, got contact.Fields, err error) {
	t.Helper()
	if wantFields != nil {
		if diff := cmp.Diff(wantFields, fieldsOf(t, err), sorted()); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, rawJSON()); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}
