// Package customfield is the schema of custom fields that contacts and
// transactions carry (contract section 5): a definition's key, label, type,
// enum options and required flag, the validation of a definition as a client
// sends it, and the check of custom_fields values against a tenant's
// definitions. Services keep their own stored definitions (ids, tenant,
// timestamps) and hand the schema part to this package.
package customfield

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Type is the type of a custom field's values.
type Type string

// The field types.
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Date    Type = "date"
	Enum    Type = "enum"
)

// Limits of definitions.
const (
	MaxLabelLength  = 191
	MaxOptions      = 100
	MaxOptionLength = 191
)

// keyPattern is the shape of a key: a lower-case letter, then up to 63
// lower-case letters, digits and underscores.
const keyPattern = `^[a-z][a-z0-9_]{0,63}$`

// Valid reports whether t is one of the field types.
func (t Type) Valid() bool {
	switch t {
	case String, Integer, Number, Boolean, Date, Enum:
		return true
	}
	return false
}

// Spec is the schema of one custom field.
type Spec struct {
	Key      string
	Label    string
	Type     Type
	Options  []string // enum only; nil for other types
	Required bool
}

// Input is a definition as a client sends it (create or PUT); nil means
// absent or null.
type Input struct {
	Key      *string
	Label    *string
	Type     *string
	Options  []string
	Required *bool
}

// Problems collects validation messages per field (dotted names). Services
// convert their own map[string][]string types to it.
type Problems map[string][]string

// Add records a message for field.
func (p Problems) Add(field, message string) { p[field] = append(p[field], message) }

// Has reports whether field has a message.
func (p Problems) Has(field string) bool { return len(p[field]) > 0 }

// New validates a create into p and returns the spec (zero parts where the
// input was refused).
func New(p Problems, in Input) Spec {
	s := Spec{Key: key(p, in.Key), Type: fieldType(p, in.Type)}
	s.Label, s.Options, s.Required = mutable(p, in, s.Type)
	return s
}

// Replace applies a PUT into p: label, options and required are replaced;
// key and type may be sent but not changed.
func (s Spec) Replace(p Problems, in Input) Spec {
	if in.Key != nil && *in.Key != s.Key {
		p.Add("key", "The key field cannot be changed.")
	}
	if in.Type != nil && Type(*in.Type) != s.Type {
		p.Add("type", "The type field cannot be changed.")
	}
	s.Label, s.Options, s.Required = mutable(p, in, s.Type)
	return s
}

func key(p Problems, k *string) string {
	switch {
	case k == nil || *k == "":
		p.Add("key", "The key field is required.")
	case !regexp.MustCompile(keyPattern).MatchString(*k):
		p.Add("key", "The key field must start with a lower-case letter and contain only lower-case letters, digits and underscores (at most 64).")
	default:
		return *k
	}
	return ""
}

func fieldType(p Problems, typ *string) Type {
	switch {
	case typ == nil || *typ == "":
		p.Add("type", "The type field is required.")
	case !Type(*typ).Valid():
		p.Add("type", "The selected type is invalid (string, integer, number, boolean, date or enum).")
	default:
		return Type(*typ)
	}
	return ""
}

// mutable validates label, options and required for a type.
func mutable(p Problems, in Input, typ Type) (string, []string, bool) {
	var label string
	switch {
	case in.Label == nil || strings.TrimSpace(*in.Label) == "":
		p.Add("label", "The label field is required.")
	case utf8.RuneCountInString(strings.TrimSpace(*in.Label)) > MaxLabelLength:
		p.Add("label", fmt.Sprintf("The label field must not be greater than %d characters.", MaxLabelLength))
	case !isText(*in.Label):
		p.Add("label", notTextMessage("label"))
	default:
		label = strings.TrimSpace(*in.Label)
	}
	required := in.Required != nil && *in.Required
	if typ != Enum {
		if len(in.Options) > 0 {
			p.Add("options", "The options field is only allowed when type is enum.")
		}
		return label, nil, required
	}
	return label, options(p, in.Options), required
}

// options validates the values of an enum: 1 to MaxOptions distinct,
// non-empty strings.
func options(p Problems, opts []string) []string {
	if len(opts) == 0 {
		p.Add("options", "The options field is required when type is enum.")
		return nil
	}
	if len(opts) > MaxOptions {
		p.Add("options", fmt.Sprintf("The options field must not have more than %d items.", MaxOptions))
		return nil
	}
	for i, o := range opts {
		field := fmt.Sprintf("options.%d", i)
		switch {
		case o == "":
			p.Add(field, "The "+field+" field is required.")
		case utf8.RuneCountInString(o) > MaxOptionLength:
			p.Add(field, fmt.Sprintf("The %s field must not be greater than %d characters.", field, MaxOptionLength))
		case !isText(o):
			p.Add(field, notTextMessage(field))
		case slices.Contains(opts[:i], o):
			p.Add(field, "The "+field+" field has a duplicate value.")
		}
	}
	return slices.Clone(opts)
}

// isText reports whether s can be stored as text: valid UTF-8 without
// U+0000, which Postgres refuses in text and jsonb.
func isText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

func notTextMessage(field string) string {
	return "The " + field + " field must be UTF-8 text without the NUL character."
}
