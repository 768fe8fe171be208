// Package fielddef is the per-tenant schema of transaction custom fields
// (contract section 5): definitions with a key, label, type, enum options and
// required flag, and the check of custom_fields values against them.
package fielddef

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paylane/paylane/transactions-svc/internal/verr"
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

// Errors of definitions.
var (
	ErrNotFound = errors.New("fielddef: definition not found")
	ErrKeyTaken = errors.New("fielddef: key already taken")
)

// keyPattern is the shape of a key (compiled per call site through keyRE:
// no package-level state).
const keyPattern = `^[a-z][a-z0-9_]{0,63}$`

func keyRE() *regexp.Regexp { return regexp.MustCompile(keyPattern) }

// Valid reports whether t is one of the field types.
func (t Type) Valid() bool {
	switch t {
	case String, Integer, Number, Boolean, Date, Enum:
		return true
	}
	return false
}

// Definition is a custom field the tenant's transactions may carry.
type Definition struct {
	ID        string
	TenantID  string
	Key       string
	Label     string
	Type      Type
	Options   []string // enum only
	Required  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Input is a definition as a client sends it; nil means absent or null.
type Input struct {
	Key      *string
	Label    *string
	Type     *string
	Options  []string
	Required *bool
}

// New validates a create and returns the definition without id or
// timestamps, or a *verr.Error.
func New(in Input) (Definition, error) {
	p := verr.Problems{}
	d := Definition{Key: key(p, in.Key), Type: fieldType(p, in.Type)}
	d.Label, d.Options, d.Required = mutable(p, in, d.Type)
	return d, p.Err()
}

// Replace applies a PUT: label, options and required are replaced; key and
// type may be sent but not changed.
func (d Definition) Replace(in Input) (Definition, error) {
	p := verr.Problems{}
	if in.Key != nil && *in.Key != d.Key {
		p.Add("key", "The key field cannot be changed.")
	}
	if in.Type != nil && Type(*in.Type) != d.Type {
		p.Add("type", "The type field cannot be changed.")
	}
	d.Label, d.Options, d.Required = mutable(p, in, d.Type)
	return d, p.Err()
}

func key(p verr.Problems, k *string) string {
	switch {
	case k == nil || *k == "":
		p.Add("key", "The key field is required.")
	case !keyRE().MatchString(*k):
		p.Add("key", "The key field must start with a lower-case letter and contain only lower-case letters, digits and underscores (at most 64).")
	default:
		return *k
	}
	return ""
}

func fieldType(p verr.Problems, typ *string) Type {
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
func mutable(p verr.Problems, in Input, typ Type) (string, []string, bool) {
	var label string
	switch {
	case in.Label == nil || strings.TrimSpace(*in.Label) == "":
		p.Add("label", "The label field is required.")
	case utf8.RuneCountInString(strings.TrimSpace(*in.Label)) > MaxLabelLength:
		p.Add("label", fmt.Sprintf("The label field must not be greater than %d characters.", MaxLabelLength))
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
func options(p verr.Problems, opts []string) []string {
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
		case slices.Contains(opts[:i], o):
			p.Add(field, "The "+field+" field has a duplicate value.")
		}
	}
	return slices.Clone(opts)
}
