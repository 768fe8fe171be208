package customfield_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/customfield"
)

// FuzzDefinition: New never panics; an accepted definition has a key of
// the documented shape, a known type and a label and options that are
// UTF-8 without NUL; Replace of an accepted definition with its own input
// is accepted unchanged.
func FuzzDefinition(f *testing.F) {
	f.Add("tier", "Tier", "enum", "gold,silver", true)
	f.Add("note", "Note", "string", "", false)
	f.Add("Bad", "", "enum", "", false)
	f.Add("k", "L\x00", "enum", "a,\x00,\xff", false)
	f.Add("k", strings.Repeat("é", 192), "date", "", true)
	f.Fuzz(func(t *testing.T, key, label, typ, opts string, required bool) {
		var options []string
		if opts != "" {
			options = strings.Split(opts, ",")
		}
		in := customfield.Input{Key: &key, Label: &label, Type: &typ, Options: options, Required: &required}
		p := customfield.Problems{}
		spec := customfield.New(p, in)
		for field, msgs := range p {
			if field == "" || len(msgs) == 0 {
				t.Fatalf("problem without field or message: %v", p)
			}
		}
		if len(p) > 0 {
			return
		}
		if !spec.Type.Valid() || spec.Key != key || len(spec.Key) > 64 {
			t.Fatalf("accepted %+v from %+v", spec, in)
		}
		for _, s := range append([]string{spec.Label}, spec.Options...) {
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				t.Fatalf("accepted text %q", s)
			}
		}
		p2 := customfield.Problems{}
		again := spec.Replace(p2, in)
		if len(p2) > 0 || again.Label != spec.Label || len(again.Options) != len(spec.Options) {
			t.Fatalf("Replace with the same input: %+v, problems %v", again, p2)
		}
	})
}

// FuzzCheck: Set.Check never panics; every problem names a custom field;
// accepted values are of their type, hold no NUL and are compact
// JSON that is accepted again.
func FuzzCheck(f *testing.F) {
	for _, v := range []string{`"gold"`, `"x\u0000"`, `12`, `1.5`, `1e3`, `true`, `"2026-02-30"`, `"2026-02-28"`, `null`, `{"a":1}`, `[1]`, `"\ud800"`, `9223372036854775808`} {
		f.Add("note", v)
		f.Add("tier", v)
		f.Add("seats", v)
	}
	set := customfield.NewSet([]customfield.Spec{
		{Key: "tier", Type: customfield.Enum, Options: []string{"gold", "silver"}},
		{Key: "note", Type: customfield.String},
		{Key: "seats", Type: customfield.Integer},
		{Key: "score", Type: customfield.Number},
		{Key: "vip", Type: customfield.Boolean},
		{Key: "since", Type: customfield.Date},
	})
	f.Fuzz(func(t *testing.T, key, raw string) {
		if !json.Valid([]byte(raw)) {
			return // values reach Check only from a decoded body
		}
		p := customfield.Problems{}
		out := set.Check(p, map[string]json.RawMessage{key: json.RawMessage(raw)})
		for field := range p {
			if !strings.HasPrefix(field, "custom_fields.") {
				t.Fatalf("problem field %q", field)
			}
		}
		for k, v := range out {
			var decoded any
			if err := json.Unmarshal(v, &decoded); err != nil {
				t.Fatalf("accepted %s = %s is not JSON: %v", k, v, err)
			}
			if str, ok := decoded.(string); ok && (strings.ContainsRune(str, 0) || !utf8.ValidString(str)) {
				t.Fatalf("accepted %s = %s holds a NUL or bytes that are not UTF-8", k, v)
			}
			p2 := customfield.Problems{}
			if again := set.Check(p2, map[string]json.RawMessage{k: v}); len(p2) > 0 || string(again[k]) != string(v) {
				t.Fatalf("accepted %s = %s is not accepted again: %v %v", k, v, again, p2)
			}
		}
	})
}
