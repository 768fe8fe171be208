package wire

import (
	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/apitime"
)

// Definition is a contact field definition as the API shows it; options
// is null for types other than enum.
type Definition struct {
	ID        string   `json:"id"`
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Type      string   `json:"type"`
	Options   []string `json:"options"`
	Required  bool     `json:"required"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

// NewDefinition renders d.
func NewDefinition(d contact.Definition) Definition {
	return Definition{
		ID: d.ID, Key: d.Key, Label: d.Label, Type: string(d.Type), Options: d.Options, Required: d.Required,
		CreatedAt: apitime.Format(d.CreatedAt), UpdatedAt: apitime.Format(d.UpdatedAt),
	}
}

// NewDefinitions renders a list.
func NewDefinitions(list []contact.Definition) []Definition {
	out := make([]Definition, len(list))
	for i, d := range list {
		out[i] = NewDefinition(d)
	}
	return out
}

// RowResult is the outcome of one bulk-upsert row.
type RowResult struct {
	RowIndex  int                 `json:"row_index"`
	ContactID string              `json:"contact_id,omitempty"`
	Action    string              `json:"action"`
	Errors    map[string][]string `json:"errors,omitempty"`
}

// NewRowResults renders bulk-upsert outcomes.
func NewRowResults(list []contact.RowResult) []RowResult {
	out := make([]RowResult, len(list))
	for i, r := range list {
		out[i] = RowResult{RowIndex: r.RowIndex, ContactID: r.ContactID, Action: string(r.Action), Errors: r.Errors}
	}
	return out
}

// PhoneRecord is a phone record as the internal route shows it.
type PhoneRecord struct {
	ID        string `json:"id"`
	Phone     string `json:"phone"`
	CreatedAt string `json:"created_at"`
}

// NewPhoneRecord renders p.
func NewPhoneRecord(p contact.PhoneRecord) PhoneRecord {
	return PhoneRecord{ID: p.ID, Phone: p.E164, CreatedAt: apitime.Format(p.CreatedAt)}
}
