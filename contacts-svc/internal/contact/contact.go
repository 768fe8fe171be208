// Package contact is the domain of contacts-svc: contacts, their canonical
// phone numbers, the tenant's contact field definitions and the rules that
// govern them. It knows nothing of HTTP or SQL.
package contact

import (
	"encoding/json"
	"time"

	"github.com/paylane/paylane/libs/apierr"
)

// Length limits of contact fields (contract section 4).
const (
	MaxNameLength       = 100
	MaxExternalIDLength = 191
	MaxEmailLength      = 254
)

// Errors the use cases report, each with its API answer.
var (
	// ErrNotFound: no such contact (or definition) in the tenant, or an id
	// that is not a ULID.
	ErrNotFound = apierr.NewSentinel("contact: not found", apierr.NotFound())
	// ErrUnavailable: a service the answer needs (optin-svc for a single
	// read's opt-in standing) cannot answer for now; the client retries.
	ErrUnavailable = apierr.NewSentinel("contact: a service the answer needs is unavailable",
		apierr.Unavailable("The service is temporarily unavailable. Please retry.", 1))
	// ErrPhoneTaken: another live contact of the tenant has the phone.
	ErrPhoneTaken = apierr.NewSentinel("contact: phone already used by a live contact",
		apierr.Field("phone", MsgPhoneTaken))
	// ErrExternalIDTaken: another live contact of the tenant has the external id.
	ErrExternalIDTaken = apierr.NewSentinel("contact: external id already used by a live contact",
		apierr.Field("external_id", MsgExternalIDTaken))
)

// Contact is a person a tenant pays or collects from. Its phone, in E.164,
// is its identity: one canonical phone record (PhoneID) per number per
// tenant, and at most one live contact per phone record.
type Contact struct {
	ID       string
	TenantID string
	Fields
	PhoneID   string
	CreatedAt time.Time
	UpdatedAt time.Time
	// DeletedAt is set while the contact is soft-deleted.
	DeletedAt *time.Time
}

// Fields are the mutable fields of a contact, validated and normalised:
// Phone is E.164, optional strings are nil rather than empty, and
// CustomFields is never nil.
type Fields struct {
	ExternalID *string
	FirstName  *string
	LastName   *string
	Phone      string
	Email      *string
	// CustomFields maps definition keys to their JSON values.
	CustomFields map[string]json.RawMessage
}

// State is where a contact is in its lifecycle.
func (c Contact) State() State {
	if c.DeletedAt != nil {
		return StateDeleted
	}
	return StateActive
}

// Live reports whether the contact is not soft-deleted.
func (c Contact) Live() bool { return c.DeletedAt == nil }

// Messages of the uniqueness rules, shared by the checks and the adapters
// that map constraint violations.
const (
	MsgPhoneTaken      = "The phone has already been taken."
	MsgExternalIDTaken = "The external id has already been taken."
)

// PhoneRecord is the tenant's canonical record of one E.164 number: every
// contact that ever had the number points at it, and other services (the
// suppression list) name the number by its id.
type PhoneRecord struct {
	ID        string
	E164      string
	CreatedAt time.Time
}
