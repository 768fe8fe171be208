package fielddef

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Set is a tenant's definitions, indexed by key, for checking custom_fields.
type Set struct {
	list  []Definition
	byKey map[string]Definition
}

// NewSet indexes defs by key.
func NewSet(defs []Definition) Set {
	s := Set{list: defs, byKey: make(map[string]Definition, len(defs))}
	for _, d := range defs {
		s.byKey[d.Key] = d
	}
	return s
}

// Lookup returns the definition of key.
func (s Set) Lookup(key string) (Definition, bool) {
	d, ok := s.byKey[key]
	return d, ok
}

// Check validates custom field values into p: every key must be defined,
// every value of its type, and every required field present. A null value
// removes the key. It returns the accepted values, compacted.
func (s Set) Check(p verr.Problems, values map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(values))
	for key, raw := range values {
		field := "custom_fields." + key
		def, ok := s.byKey[key]
		if !ok {
			p.Add(field, "The "+field+" field is not defined.")
			continue
		}
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			continue
		}
		if msg := def.check(field, raw); msg != "" {
			p.Add(field, msg)
			continue
		}
		out[key] = compact(raw)
	}
	for _, def := range s.list {
		field := "custom_fields." + def.Key
		if _, ok := out[def.Key]; def.Required && !ok && !p.Has(field) {
			p.Add(field, "The "+field+" field is required.")
		}
	}
	return out
}

// check returns the problem with a value for the definition, or "".
func (d Definition) check(field string, raw json.RawMessage) string {
	switch d.Type {
	case String:
		if _, ok := asString(raw); !ok {
			return "The " + field + " field must be a string."
		}
	case Integer:
		if !isInteger(raw) {
			return "The " + field + " field must be an integer."
		}
	case Number:
		var n json.Number
		if raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return "The " + field + " field must be a number."
		}
	case Boolean:
		if s := string(raw); s != "true" && s != "false" {
			return "The " + field + " field must be true or false."
		}
	case Date:
		s, ok := asString(raw)
		if _, err := time.Parse(time.DateOnly, s); !ok || err != nil {
			return "The " + field + " field must be a date in the format YYYY-MM-DD."
		}
	case Enum:
		if s, ok := asString(raw); !ok || !slices.Contains(d.Options, s) {
			return "The selected " + field + " is invalid."
		}
	}
	return ""
}

func asString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isInteger accepts a JSON number without fraction or exponent that fits in
// 64 bits.
func isInteger(raw json.RawMessage) bool {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil || strings.ContainsAny(string(n), ".eE") {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
