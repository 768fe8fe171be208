package apifuzz

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// Filler supplies the value of the property at path (dotted: "contact_id",
// "contact.external_id", "items[].phone"); ok false lets the generator
// make one. A property the filler answers is sent even when not required.
type Filler func(path string, s Schema) (v any, ok bool)

// Valid returns a value that satisfies s as far as the document describes
// it: required properties only (plus those fill answers), the first enum
// value, minimums. r, when set, varies the choices.
func Valid(s Schema, r *rand.Rand, fill Filler) any {
	return valid(s, r, fill, "", 0)
}

// merged folds allOf into one schema and picks the first non-null branch
// of oneOf/anyOf.
func merged(s Schema) Schema {
	if s == nil {
		return Schema{}
	}
	out := Schema{}
	for k, v := range s {
		if k != "allOf" && k != "oneOf" && k != "anyOf" {
			out[k] = v
		}
	}
	addFrom := func(sub Schema) {
		sub = merged(sub)
		for k, v := range sub {
			switch k {
			case "properties":
				props, _ := out["properties"].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				for pk, pv := range v.(map[string]any) {
					props[pk] = pv
				}
				out["properties"] = props
			case "required":
				req, _ := out["required"].([]any)
				vs, _ := v.([]any)
				out["required"] = append(req, vs...)
			default:
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if m, ok := sub.(map[string]any); ok {
				addFrom(m)
			}
		}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok {
			for _, sub := range alts {
				m, ok := sub.(map[string]any)
				if !ok || typeOf(m) == "null" {
					continue
				}
				addFrom(m)
				break
			}
		}
	}
	return out
}

// typeOf is the schema's first non-null type, guessed from its keywords
// when it has none.
func typeOf(s Schema) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if str, ok := e.(string); ok && str != "null" {
				return str
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	switch {
	case s["properties"] != nil || s["additionalProperties"] != nil:
		return "object"
	case s["items"] != nil:
		return "array"
	case s["enum"] != nil:
		return "enum"
	}
	return ""
}

// Properties returns the schema's properties (after allOf/oneOf) sorted by
// name, and its required names.
func Properties(s Schema) (names []string, props map[string]Schema, required map[string]bool) {
	s = merged(s)
	props = map[string]Schema{}
	if p, ok := s["properties"].(map[string]any); ok {
		for k, v := range p {
			m, _ := v.(map[string]any)
			props[k] = m
			names = append(names, k)
		}
	}
	sort.Strings(names)
	required = map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok {
				required[n] = true
			}
		}
	}
	return names, props, required
}

func intOf(v any, def int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return def
}

func valid(s Schema, r *rand.Rand, fill Filler, path string, depth int) any {
	if depth > 8 {
		return nil
	}
	s = merged(s)
	if c, ok := s["const"]; ok {
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		i := 0
		if r != nil {
			i = r.IntN(len(enum))
		}
		return enum[i]
	}
	name := path[strings.LastIndex(path, ".")+1:]
	switch typeOf(s) {
	case "object":
		names, props, required := Properties(s)
		out := map[string]any{}
		for _, n := range names {
			p := n
			if path != "" {
				p = path + "." + n
			}
			if fill != nil {
				if v, ok := fill(p, props[n]); ok {
					out[n] = v
					continue
				}
			}
			if required[n] {
				out[n] = valid(props[n], r, fill, p, depth+1)
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		n := max(intOf(s["minItems"], 1), 1)
		out := make([]any, n)
		for i := range out {
			out[i] = valid(items, r, fill, path+"[]", depth+1)
		}
		return out
	case "integer", "number":
		v := 1
		if strings.Contains(name, "amount") {
			v = 4200
		}
		if m, ok := s["minimum"].(float64); ok && float64(v) < m {
			v = int(m)
		}
		if m, ok := s["maximum"].(float64); ok && float64(v) > m {
			v = int(m)
		}
		return v
	case "boolean":
		return false
	case "null":
		return nil
	default:
		return validString(s, r, name)
	}
}

func validString(s Schema, r *rand.Rand, name string) string {
	n := 0
	if r != nil {
		n = r.IntN(10000)
	}
	format, _ := s["format"].(string)
	var v string
	switch {
	case format == "date":
		v = "2031-01-15"
	case format == "date-time":
		v = "2031-01-15T10:00:00Z"
	case format == "email" || strings.Contains(name, "email"):
		v = fmt.Sprintf("fuzz%d@example.com", n)
	case format == "uri" || format == "url" || name == "url":
		v = fmt.Sprintf("https://hooks.invalid/f%d", n)
	case strings.Contains(name, "phone"):
		v = fmt.Sprintf("+1415555%04d", n)
	case name == "currency":
		v = "USD"
	case name == "key":
		v = fmt.Sprintf("fuzz_key_%d", n)
	case name == "message":
		v = "Your payment is due."
	default:
		v = fmt.Sprintf("fuzz %d", n)
	}
	if m := intOf(s["maxLength"], -1); m >= 0 && len(v) > m {
		v = v[:m]
	}
	if m := intOf(s["minLength"], 0); len(v) < m {
		v += strings.Repeat("x", m-len(v))
	}
	return v
}
