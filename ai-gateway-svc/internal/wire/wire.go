// Package wire renders the AI gateway's answers: the data of its REST
// routes, which its MCP tools return as their structured content.
package wire

import (
	"encoding/json"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/libs/apitime"
)

// Resolution is the answer of resolve-contact (contract section 11).
type Resolution struct {
	Status     string      `json:"status"`
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one contact a resolution found.
type Candidate struct {
	ContactID  string  `json:"contact_id"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	PhoneLast4 string  `json:"phone_last4"`
	Score      float64 `json:"score"`
}

// NewResolution renders a resolution.
func NewResolution(r app.Resolution) Resolution {
	out := Resolution{Status: r.Status, Candidates: make([]Candidate, len(r.Candidates))}
	for i, c := range r.Candidates {
		out.Candidates[i] = Candidate{ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName,
			PhoneLast4: c.PhoneLast4, Score: c.Score}
	}
	return out
}

// Contact is a created contact as the contacts API shows it.
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
}

// NewContact renders a created contact.
func NewContact(c *contacts.Contact) Contact {
	return Contact{ID: c.ID, ExternalID: c.ExternalID, FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone,
		PhoneID: c.PhoneID, Email: c.Email, CustomFields: orEmpty(c.CustomFields),
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt)}
}

// Draft is the answer of prepare (contract section 11): receivable_id or
// payable_id by direction.
type Draft struct {
	TransactionID string               `json:"transaction_id"`
	ReceivableID  *string              `json:"receivable_id,omitempty"`
	PayableID     *string              `json:"payable_id,omitempty"`
	Status        string               `json:"status"`
	Preview       transactions.Preview `json:"preview"`
	ExpiresAt     string               `json:"expires_at"`
}

// NewDraft renders a prepared draft.
func NewDraft(d *transactions.Draft) Draft {
	return Draft{TransactionID: d.TransactionID, ReceivableID: d.ReceivableID, PayableID: d.PayableID,
		Status: d.Status, Preview: d.Preview, ExpiresAt: d.ExpiresAt}
}

// Confirmed is the answer of confirm.
type Confirmed struct {
	TransactionID string `json:"transaction_id"`
	Status        string `json:"status"`
}

// orEmpty keeps a nil map from rendering as null.
func orEmpty(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}
