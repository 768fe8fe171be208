package contact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/apierr"
)

// FieldType is the type of a custom field's values.
type FieldType string

// The field types (contract section 5).
const (
	TypeString  FieldType = "string"
	TypeInteger FieldType = "integer"
	TypeNumber  FieldType = "number"
	TypeBoolean FieldType = "boolean"
	TypeDate    FieldType = "date"
	TypeEnum    FieldType = "enum"
)

// Limits of definitions.
const (
	MaxLabelLength  = 191
	MaxOptions      = 100
	MaxOptionLength = 191
)

// ErrKeyTaken: the tenant already has a definition with the key.
var ErrKeyTaken = apierr.NewSentinel("contact: field definition key already taken",
	apierr.Field("key", "The key has already been taken."))

// keyPattern is the shape of a definition key.
var keyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Valid reports whether t is one of the field types.
func (t FieldType) Valid() bool {
	switch t {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeDate, TypeEnum:
		return true
	}
	return false
}

// Definition is a custom field the tenant's contacts may carry.
type Definition struct {
	ID       string
	TenantID string
	Key      string
	Label    string
	Type     FieldType
	// Options are the allowed values of an enum field; nil for other types.
	Options   []string
	Required  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// DefinitionInput is a definition as a client sends it (create or PUT); nil
// means absent or null.
type DefinitionInput struct {
	Key      *string
	Label    *string
	Type     *string
	Options  []string
	Required *bool
}

// NewDefinition validates a create and returns the definition without id or
// timestamps, or a *ValidationError.
func NewDefinition(in DefinitionInput) (Definition, error) {
	p := problems{}
	d := Definition{Key: definitionKey(p, in.Key), Type: fieldType(p, in.Type)}
	d.Label, d.Options, d.Required = definitionMutable(p, in, d.Type)
	return d, p.err()
}

// Replace applies a PUT: label, options and required are replaced; key and
// type may be sent but not changed.
func (d Definition) Replace(in DefinitionInput) (Definition, error) {
	p := problems{}
	if in.Key != nil && *in.Key != d.Key {
		p.add("key", "The key field cannot be changed.")
	}
	if in.Type != nil && FieldType(*in.Type) != d.Type {
		p.add("type", "The type field cannot be changed.")
	}
	d.Label, d.Options, d.Required = definitionMutable(p, in, d.Type)
	return d, p.err()
}

func definitionKey(p problems, key *string) string {
	switch {
	case key == nil || *key == "":
		p.add("key", "The key field is required.")
	case !keyPattern.MatchString(*key):
		p.add("key", "The key field must start with a lower-case letter and contain only lower-case letters, digits and underscores (at most 64).")
	default:
		return *key
	}
	return ""
}

func fieldType(p problems, typ *string) FieldType {
	switch {
	case typ == nil || *typ == "":
		p.add("type", "The type field is required.")
	case !FieldType(*typ).Valid():
		p.add("type", "The selected type is invalid (string, integer, number, boolean, date or enum).")
	default:
		return FieldType(*typ)
	}
	return ""
}

// definitionMutable validates label, options and required for a type.
func definitionMutable(p problems, in DefinitionInput, typ FieldType) (string, []string, bool) {
	var label string
	switch {
	case in.Label == nil || strings.TrimSpace(*in.Label) == "":
		p.add("label", "The label field is required.")
	case utf8.RuneCountInString(strings.TrimSpace(*in.Label)) > MaxLabelLength:
		p.add("label", fmt.Sprintf("The label field must not be greater than %d characters.", MaxLabelLength))
	default:
		label = strings.TrimSpace(*in.Label)
	}
	required := in.Required != nil && *in.Required
	if typ != TypeEnum {
		if len(in.Options) > 0 {
			p.add("options", "The options field is only allowed when type is enum.")
		}
		return label, nil, required
	}
	return label, options(p, in.Options), required
}

// options validates the values of an enum: 1 to MaxOptions distinct,
// non-empty strings.
func options(p problems, opts []string) []string {
	if len(opts) == 0 {
		p.add("options", "The options field is required when type is enum.")
		return nil
	}
	if len(opts) > MaxOptions {
		p.add("options", fmt.Sprintf("The options field must not have more than %d items.", MaxOptions))
		return nil
	}
	for i, o := range opts {
		field := fmt.Sprintf("options.%d", i)
		switch {
		case o == "":
			p.add(field, "The "+field+" field is required.")
		case utf8.RuneCountInString(o) > MaxOptionLength:
			p.add(field, fmt.Sprintf("The %s field must not be greater than %d characters.", field, MaxOptionLength))
		case slices.Contains(opts[:i], o):
			p.add(field, "The "+field+" field has a duplicate value.")
		}
	}
	return slices.Clone(opts)
}
