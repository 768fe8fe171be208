// Package fielddef is the per-tenant schema of transaction custom fields
// (contract section 5): stored definitions with an id, tenant and
// timestamps around the schema of libs/customfield, which validates the
// definitions and checks custom_fields values against them.
package fielddef

import (
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/customfield"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Type is the type of a custom field's values.
type Type = customfield.Type

// The field types.
const (
	String  = customfield.String
	Integer = customfield.Integer
	Number  = customfield.Number
	Boolean = customfield.Boolean
	Date    = customfield.Date
	Enum    = customfield.Enum
)

// Errors of definitions.
var (
	ErrNotFound = apierr.NewSentinel("fielddef: definition not found", apierr.NotFound())
	ErrKeyTaken = apierr.NewSentinel("fielddef: key already taken", apierr.Field("key", "The key has already been taken."))
)

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
type Input = customfield.Input

// New validates a create and returns the definition without id or
// timestamps, or a *verr.Error.
func New(in Input) (Definition, error) {
	p := verr.Problems{}
	var d Definition
	d.set(customfield.New(customfield.Problems(p), in))
	return d, p.Err()
}

// Replace applies a PUT: label, options and required are replaced; key and
// type may be sent but not changed.
func (d Definition) Replace(in Input) (Definition, error) {
	p := verr.Problems{}
	d.set(d.Spec().Replace(customfield.Problems(p), in))
	return d, p.Err()
}

// Spec is the schema part of the definition.
func (d Definition) Spec() customfield.Spec {
	return customfield.Spec{Key: d.Key, Label: d.Label, Type: d.Type, Options: d.Options, Required: d.Required}
}

func (d *Definition) set(s customfield.Spec) {
	d.Key, d.Label, d.Type, d.Options, d.Required = s.Key, s.Label, s.Type, s.Options, s.Required
}
