// Package verr holds the validation error the domain packages return: input
// that breaks the rules, with messages per field (dotted names for nested
// fields, "custom_fields.tier"). The HTTP layer renders it as 422
// validation_failed.
package verr

import (
	"sort"
	"strings"

	"github.com/paylane/paylane/libs/apierr"
)

// Error is input that breaks the rules.
type Error struct {
	Fields map[string][]string
}

// Error implements the error interface.
func (e *Error) Error() string {
	names := make([]string, 0, len(e.Fields))
	for f := range e.Fields {
		names = append(names, f)
	}
	sort.Strings(names)
	return "invalid fields " + strings.Join(names, ", ")
}

// APIError answers 422 validation_failed with the fields' messages.
func (e *Error) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// Field returns an Error for a single field.
func Field(field, message string) *Error {
	return &Error{Fields: map[string][]string{field: {message}}}
}

// Problems collects messages per field.
type Problems map[string][]string

// Add records a message for field.
func (p Problems) Add(field, message string) { p[field] = append(p[field], message) }

// Has reports whether field has a message.
func (p Problems) Has(field string) bool { return len(p[field]) > 0 }

// Merge adds every message of other.
func (p Problems) Merge(other map[string][]string) {
	for f, msgs := range other {
		p[f] = append(p[f], msgs...)
	}
}

// Err returns the collected problems as an *Error, or nil when there are
// none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Fields: p}
}
