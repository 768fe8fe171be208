package contact

import (
	"encoding/json"

	"github.com/paylane/paylane/libs/customfield"
)

// Definitions are a tenant's contact field definitions, for validating
// custom_fields (libs/customfield checks the values).
type Definitions struct {
	set customfield.Set
}

// NewDefinitions indexes defs by key.
func NewDefinitions(defs []Definition) Definitions {
	specs := make([]customfield.Spec, len(defs))
	for i, d := range defs {
		specs[i] = d.Spec()
	}
	return Definitions{set: customfield.NewSet(specs)}
}

// check validates custom field values: every key must be defined, every
// value of its type, and every required field present. A null value removes
// the key. It returns the accepted values, compacted.
func (d Definitions) check(p problems, values map[string]json.RawMessage) map[string]json.RawMessage {
	return d.set.Check(customfield.Problems(p), values)
}
