package contact

import (
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/customfield"
)

// FieldType is the type of a custom field's values.
type FieldType = customfield.Type

// The field types (contract section 5).
const (
	TypeString  = customfield.String
	TypeInteger = customfield.Integer
	TypeNumber  = customfield.Number
	TypeBoolean = customfield.Boolean
	TypeDate    = customfield.Date
	TypeEnum    = customfield.Enum
)

// Limits of definitions.
const (
	MaxLabelLength  = customfield.MaxLabelLength
	MaxOptions      = customfield.MaxOptions
	MaxOptionLength = customfield.MaxOptionLength
)

// ErrKeyTaken: the tenant already has a definition with the key.
var ErrKeyTaken = apierr.NewSentinel("contact: field definition key already taken",
	apierr.Field("key", "The key has already been taken."))

// Definition is a custom field the tenant's contacts may carry: a stored
// libs/customfield schema with its id, tenant and timestamps.
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
type DefinitionInput = customfield.Input

// NewDefinition validates a create and returns the definition without id or
// timestamps, or a *ValidationError.
func NewDefinition(in DefinitionInput) (Definition, error) {
	p := problems{}
	var d Definition
	d.set(customfield.New(customfield.Problems(p), in))
	return d, p.err()
}

// Replace applies a PUT: label, options and required are replaced; key and
// type may be sent but not changed.
func (d Definition) Replace(in DefinitionInput) (Definition, error) {
	p := problems{}
	d.set(d.Spec().Replace(customfield.Problems(p), in))
	return d, p.err()
}

// Spec is the schema part of the definition.
func (d Definition) Spec() customfield.Spec {
	return customfield.Spec{Key: d.Key, Label: d.Label, Type: d.Type, Options: d.Options, Required: d.Required}
}

func (d *Definition) set(s customfield.Spec) {
	d.Key, d.Label, d.Type, d.Options, d.Required = s.Key, s.Label, s.Type, s.Options, s.Required
}
