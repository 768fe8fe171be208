package customfield

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Set is a tenant's specs, indexed by key, for checking custom_fields.
type Set struct {
	list  []Spec
	byKey map[string]Spec
}

// NewSet indexes specs by key.
func NewSet(specs []Spec) Set {
	s := Set{list: specs, byKey: make(map[string]Spec, len(specs))}
	for _, sp := range specs {
		s.byKey[sp.Key] = sp
	}
	return s
}

// Lookup returns the spec of key.
func (s Set) Lookup(key string) (Spec, bool) {
	sp, ok := s.byKey[key]
	return sp, ok
}

// Len is the number of specs.
func (s Set) Len() int { return len(s.list) }

// Check validates custom field values into p: every key must be defined,
// every value of its type, and every required field present. A null value
// removes the key. It returns the accepted values, compacted.
func (s Set) Check(p Problems, values map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(values))
	for key, raw := range values {
		field := "custom_fields." + key
		sp, ok := s.byKey[key]
		if !ok {
			p.Add(field, "The "+field+" field is not defined.")
			continue
		}
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			continue
		}
		if msg := sp.CheckValue(field, raw); msg != "" {
			p.Add(field, msg)
			continue
		}
		out[key] = compact(raw)
	}
	for _, sp := range s.list {
		field := "custom_fields." + sp.Key
		if _, ok := out[sp.Key]; sp.Required && !ok && !p.Has(field) {
			p.Add(field, "The "+field+" field is required.")
		}
	}
	return out
}

// CheckValue returns the problem with a non-null value for the spec (field
// names it in the message), or "".
func (s Spec) CheckValue(field string, raw json.RawMessage) string {
	if v, ok := asString(raw); ok && strings.ContainsRune(v, 0) {
		return "The " + field + " field must not contain the NUL character."
	}
	switch s.Type {
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
		if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return "The " + field + " field must be a number."
		}
	case Boolean:
		if v := string(raw); v != "true" && v != "false" {
			return "The " + field + " field must be true or false."
		}
	case Date:
		v, ok := asString(raw)
		if _, err := time.Parse(time.DateOnly, v); !ok || err != nil {
			return "The " + field + " field must be a date in the format YYYY-MM-DD."
		}
	case Enum:
		if v, ok := asString(raw); !ok || !slices.Contains(s.Options, v) {
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
