package contact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Definitions are a tenant's contact field definitions, for validating
// custom_fields.
type Definitions struct {
	list  []Definition
	byKey map[string]Definition
}

// NewDefinitions indexes defs by key.
func NewDefinitions(defs []Definition) Definitions {
	d := Definitions{list: defs, byKey: make(map[string]Definition, len(defs))}
	for _, def := range defs {
		d.byKey[def.Key] = def
	}
	return d
}

// check validates custom field values: every key must be defined, every
// value of its type, and every required field present. A null value removes
// the key. It returns the accepted values.
func (d Definitions) check(p problems, values map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(values))
	for key, raw := range values {
		field := "custom_fields." + key
		def, ok := d.byKey[key]
		if !ok {
			p.add(field, "The "+field+" field is not defined.")
			continue
		}
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			continue
		}
		if msg := def.check(field, raw); msg != "" {
			p.add(field, msg)
			continue
		}
		out[key] = compact(raw)
	}
	for _, def := range d.list {
		field := "custom_fields." + def.Key
		if _, ok := out[def.Key]; def.Required && !ok && p[field] == nil {
			p.add(field, "The "+field+" field is required.")
		}
	}
	return out
}

// check returns the problem with a value for the definition, or "".
func (d Definition) check(field string, raw json.RawMessage) string {
	switch d.Type {
	case TypeString:
		if _, ok := asString(raw); !ok {
			return "The " + field + " field must be a string."
		}
	case TypeInteger:
		if !isInteger(raw) {
			return "The " + field + " field must be an integer."
		}
	case TypeNumber:
		var n json.Number
		if raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return "The " + field + " field must be a number."
		}
	case TypeBoolean:
		if s := string(raw); s != "true" && s != "false" {
			return "The " + field + " field must be true or false."
		}
	case TypeDate:
		s, ok := asString(raw)
		if _, err := time.Parse(time.DateOnly, s); !ok || err != nil {
			return "The " + field + " field must be a date in the format YYYY-MM-DD."
		}
	case TypeEnum:
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

// isInteger accepts a JSON number without fraction or exponent that fits in 64 bits.
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
