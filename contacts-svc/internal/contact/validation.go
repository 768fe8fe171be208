package contact

import (
	"sort"
	"strings"

	"github.com/paylane/paylane/libs/apierr"
)

// ValidationError is input that breaks the rules: messages per field, with
// dotted names for nested fields ("custom_fields.tier").
type ValidationError struct {
	Fields map[string][]string
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	names := make([]string, 0, len(e.Fields))
	for f := range e.Fields {
		names = append(names, f)
	}
	sort.Strings(names)
	return "contact: invalid fields " + strings.Join(names, ", ")
}

// APIError answers 422 validation_failed with the fields' messages.
func (e *ValidationError) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// FieldError returns a ValidationError for a single field.
func FieldError(field, message string) *ValidationError {
	return &ValidationError{Fields: map[string][]string{field: {message}}}
}

// problems collects messages per field.
type problems map[string][]string

func (p problems) add(field, message string) { p[field] = append(p[field], message) }

// err returns the collected problems as a *ValidationError, or nil.
func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Fields: p}
}
