package client

import (
	"encoding/json"
	"time"
)

// Contact is a contact as contacts-svc shows it; it is also the data of the
// contact.created, contact.updated, contact.deleted and contact.restored
// events on topic paylane.contacts.v1.
type Contact struct {
	ID           string                     `json:"id"`
	ExternalID   *string                    `json:"external_id"`
	FirstName    *string                    `json:"first_name"`
	LastName     *string                    `json:"last_name"`
	Phone        string                     `json:"phone"`
	PhoneID      string                     `json:"phone_id"`
	Email        *string                    `json:"email"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
	CreatedAt    time.Time                  `json:"created_at"`
	UpdatedAt    time.Time                  `json:"updated_at"`
	DeletedAt    *time.Time                 `json:"deleted_at"`
	// OptInStatus (none, pending, opted_in, opted_out) and Consents are set
	// by the single read of the public API only (Client.Show).
	OptInStatus string    `json:"opt_in_status,omitempty"`
	Consents    []Consent `json:"consents,omitempty"`
}

// Consent is an opt-in consent as the single read of a contact shows it.
type Consent struct {
	ID          string     `json:"id"`
	ContactID   string     `json:"contact_id"`
	OptInCodeID string     `json:"opt_in_code_id"`
	Status      string     `json:"status"`
	Channel     string     `json:"channel"`
	ConsentedAt *time.Time `json:"consented_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// Live reports whether the contact is not soft-deleted.
func (c Contact) Live() bool { return c.DeletedAt == nil }

// ContactInput is a contact to find or create, or a bulk-upsert item: the
// body of POST /api/v1/contacts. Empty strings are left out.
type ContactInput struct {
	ExternalID   string         `json:"external_id,omitempty"`
	FirstName    string         `json:"first_name,omitempty"`
	LastName     string         `json:"last_name,omitempty"`
	Phone        string         `json:"phone"`
	Email        string         `json:"email,omitempty"`
	CustomFields map[string]any `json:"custom_fields,omitempty"`
}

// OnDuplicate is what a bulk upsert does with a row whose external id names
// a live contact or an earlier row.
type OnDuplicate string

// The duplicate policies; the zero value means DuplicateUpdate.
const (
	DuplicateUpdate OnDuplicate = "update"
	DuplicateSkip   OnDuplicate = "skip"
	DuplicateFail   OnDuplicate = "fail"
)

// BulkUpsertRequest is a chunk of a contacts batch: Items[i] is row
// FirstRowIndex+i of batch BatchID. At most 1000 items per call.
type BulkUpsertRequest struct {
	BatchID       string         `json:"batch_id"`
	OnDuplicate   OnDuplicate    `json:"on_duplicate,omitempty"`
	FirstRowIndex int            `json:"first_row_index"`
	EmitEvents    bool           `json:"emit_events,omitempty"`
	Items         []ContactInput `json:"items"`
}

// BulkUpsertRawRequest is BulkUpsertRequest with the items as raw JSON
// objects (see Client.BulkUpsertRaw).
type BulkUpsertRawRequest struct {
	BatchID       string            `json:"batch_id"`
	OnDuplicate   OnDuplicate       `json:"on_duplicate,omitempty"`
	FirstRowIndex int               `json:"first_row_index"`
	EmitEvents    bool              `json:"emit_events,omitempty"`
	Items         []json.RawMessage `json:"items"`
}

// Row actions of a bulk upsert.
const (
	ActionCreated = "created"
	ActionUpdated = "updated"
	ActionSkipped = "skipped"
	ActionFailed  = "failed"
)

// RowResult is the outcome of one bulk-upsert row: ContactID for created,
// updated and skipped rows, Errors (messages per field) for failed ones.
type RowResult struct {
	RowIndex  int                 `json:"row_index"`
	ContactID string              `json:"contact_id,omitempty"`
	Action    string              `json:"action"`
	Errors    map[string][]string `json:"errors,omitempty"`
}

// SearchQuery finds live contacts: Name by trigram similarity, Phone (any
// format) and Email exactly; at least one. Limit 0 means 10 (at most 50).
type SearchQuery struct {
	Name, Phone, Email string
	Limit              int
}

// Candidate is a contact found by Search, with its similarity to the name
// (0 to 1; 1 when only phone or email was given).
type Candidate struct {
	ContactID  string  `json:"contact_id"`
	ExternalID *string `json:"external_id"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	PhoneLast4 string  `json:"phone_last4"`
	Score      float64 `json:"score"`
}

// PhoneRecord is the tenant's canonical record of a number: a contact's
// PhoneID names it.
type PhoneRecord struct {
	ID        string    `json:"id"`
	Phone     string    `json:"phone"`
	CreatedAt time.Time `json:"created_at"`
}
