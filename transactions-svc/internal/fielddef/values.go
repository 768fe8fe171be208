package fielddef

import (
	"encoding/json"

	"github.com/paylane/paylane/libs/customfield"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Set is a tenant's definitions, for checking custom_fields.
type Set struct {
	set customfield.Set
}

// NewSet indexes defs by key.
func NewSet(defs []Definition) Set {
	specs := make([]customfield.Spec, len(defs))
	for i, d := range defs {
		specs[i] = d.Spec()
	}
	return Set{set: customfield.NewSet(specs)}
}

// Check validates custom field values into p: every key must be defined,
// every value of its type, and every required field present. A null value
// removes the key. It returns the accepted values, compacted.
func (s Set) Check(p verr.Problems, values map[string]json.RawMessage) map[string]json.RawMessage {
	return s.set.Check(customfield.Problems(p), values)
}
