package customfield_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/customfield"
)

// TestTextWithoutNUL: a label, an option or a string value holding U+0000
// (or, for labels and options, bytes that are not UTF-8) is a problem of
// that field: Postgres refuses it in text and jsonb.
func TestTextWithoutNUL(t *testing.T) {
	t.Parallel()
	p := customfield.Problems{}
	customfield.New(p, customfield.Input{Key: ptr("k"), Label: ptr("La\x00bel"), Type: ptr("enum"), Options: []string{"a", "b\x00", "c\xff"}})
	if diff := cmp.Diff([]string{"label", "options.1", "options.2"}, fields(p)); diff != "" {
		t.Errorf("New problems (-want +got):\n%s", diff)
	}
	p = customfield.Problems{}
	customfield.Spec{Key: "k", Label: "K", Type: customfield.String}.Replace(p, customfield.Input{Label: ptr("\xff")})
	if diff := cmp.Diff([]string{"label"}, fields(p)); diff != "" {
		t.Errorf("Replace problems (-want +got):\n%s", diff)
	}
	set := customfield.NewSet([]customfield.Spec{
		{Key: "note", Type: customfield.String},
		{Key: "tier", Type: customfield.Enum, Options: []string{"gold"}},
		{Key: "since", Type: customfield.Date},
	})
	p = customfield.Problems{}
	out := set.Check(p, map[string]json.RawMessage{
		"note": json.RawMessage(`"a\u0000b"`), "tier": json.RawMessage(`"gold\u0000"`), "since": json.RawMessage(`"2026-01-01\u0000"`),
	})
	if diff := cmp.Diff([]string{"custom_fields.note", "custom_fields.since", "custom_fields.tier"}, fields(p)); diff != "" {
		t.Errorf("Check problems (-want +got):\n%s", diff)
	}
	if len(out) != 0 {
		t.Errorf("accepted %v", out)
	}
	if msg := p["custom_fields.note"][0]; msg != "The custom_fields.note field must not contain the NUL character." {
		t.Errorf("message = %q", msg)
	}
}
