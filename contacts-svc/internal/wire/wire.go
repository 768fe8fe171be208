// Package wire is the JSON shape of contacts-svc's resources, shared by the
// HTTP API and the events, so a contact reads the same in a response and in
// a contact.* event.
package wire

import (
	"encoding/json"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/phone"
)

// Contact is a contact as the API and the events show it. DeletedAt is in
// the JSON only when shown (lists and reads with with_trashed=1, events);
// the opt-in fields only on a single read.
type Contact struct {
	ID           string                     `json:"id"`
	ExternalID   *string                    `json:"external_id"`
	FirstName    *string                    `json:"first_name"`
	LastName     *string                    `json:"last_name"`
	Phone        string                     `json:"phone"`
	PhoneID      string                     `json:"phone_id"`
	Email        *string                    `json:"email"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
	CreatedAt    string                     `json:"created_at"`
	UpdatedAt    string                     `json:"updated_at"`
	DeletedAt    Deleted                    `json:"deleted_at,omitzero"`
	OptInStatus  string                     `json:"opt_in_status,omitempty"`
	Consents     []Consent                  `json:"consents,omitzero"`
}

// Deleted is the deleted_at of a contact: omitted unless Shown, then null
// or the timestamp.
type Deleted struct {
	Shown bool
	At    *time.Time
}

// IsZero reports whether deleted_at is left out (omitzero).
func (d Deleted) IsZero() bool { return !d.Shown }

// MarshalJSON renders null or the timestamp.
func (d Deleted) MarshalJSON() ([]byte, error) {
	if d.At == nil {
		return []byte("null"), nil
	}
	return json.Marshal(apitime.Format(*d.At))
}

// NewContact renders c; withDeleted shows deleted_at.
func NewContact(c contact.Contact, withDeleted bool) Contact {
	cf := c.CustomFields
	if cf == nil {
		cf = map[string]json.RawMessage{}
	}
	return Contact{
		ID: c.ID, ExternalID: c.ExternalID, FirstName: c.FirstName, LastName: c.LastName,
		Phone: c.Phone, PhoneID: c.PhoneID, Email: c.Email, CustomFields: cf,
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt),
		DeletedAt: Deleted{Shown: withDeleted, At: c.DeletedAt},
	}
}

// NewContacts renders a list.
func NewContacts(list []contact.Contact, withDeleted bool) []Contact {
	out := make([]Contact, len(list))
	for i, c := range list {
		out[i] = NewContact(c, withDeleted)
	}
	return out
}

// WithOptIn adds the single-read fields: opt_in_status and consents.
func (c Contact) WithOptIn(o contact.OptIn) Contact {
	c.OptInStatus = o.Status
	if c.OptInStatus == "" {
		c.OptInStatus = contact.OptInNone
	}
	c.Consents = make([]Consent, len(o.Consents))
	for i, k := range o.Consents {
		c.Consents[i] = newConsent(k)
	}
	return c
}

// Consent is an opt-in consent as a contact read shows it.
type Consent struct {
	ID          string  `json:"id"`
	ContactID   string  `json:"contact_id"`
	OptInCodeID string  `json:"opt_in_code_id"`
	Status      string  `json:"status"`
	Channel     string  `json:"channel"`
	ConsentedAt *string `json:"consented_at"`
	RevokedAt   *string `json:"revoked_at"`
	CreatedAt   string  `json:"created_at"`
}

func newConsent(k contact.Consent) Consent {
	return Consent{
		ID: k.ID, ContactID: k.ContactID, OptInCodeID: k.OptInCodeID, Status: k.Status, Channel: k.Channel,
		ConsentedAt: apitime.FormatPtr(k.ConsentedAt), RevokedAt: apitime.FormatPtr(k.RevokedAt), CreatedAt: apitime.Format(k.CreatedAt),
	}
}

// Candidate is a search result for the AI gateway: enough to tell people
// apart, never the full phone number.
type Candidate struct {
	ContactID  string  `json:"contact_id"`
	ExternalID *string `json:"external_id"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	PhoneLast4 string  `json:"phone_last4"`
	Score      float64 `json:"score"`
}

// NewCandidates renders search results.
func NewCandidates(list []contact.Candidate) []Candidate {
	out := make([]Candidate, len(list))
	for i, c := range list {
		out[i] = Candidate{
			ContactID: c.Contact.ID, ExternalID: c.Contact.ExternalID,
			FirstName: c.Contact.FirstName, LastName: c.Contact.LastName,
			PhoneLast4: phone.Last4(c.Contact.Phone), Score: c.Score,
		}
	}
	return out
}
