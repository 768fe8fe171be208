package httpapi

import (
	"encoding/json"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/libs/apitime"
)

// resolution is the answer of resolve-contact (contract section 11).
type resolution struct {
	Status     string      `json:"status"`
	Candidates []candidate `json:"candidates"`
}

// candidate is one contact a resolution found.
type candidate struct {
	ContactID  string  `json:"contact_id"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	PhoneLast4 string  `json:"phone_last4"`
	Score      float64 `json:"score"`
}

func newResolution(r app.Resolution) resolution {
	out := resolution{Status: r.Status, Candidates: make([]candidate, len(r.Candidates))}
	for i, c := range r.Candidates {
		out.Candidates[i] = candidate{ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName,
			PhoneLast4: c.PhoneLast4, Score: c.Score}
	}
	return out
}

// contact is a created contact as the contacts API shows it.
type contact struct {
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

func newContact(c *contacts.Contact) contact {
	return contact{ID: c.ID, ExternalID: c.ExternalID, FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone,
		PhoneID: c.PhoneID, Email: c.Email, CustomFields: orEmpty(c.CustomFields),
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt)}
}

// draft is the answer of prepare (contract section 11): receivable_id or
// payable_id by direction.
type draft struct {
	TransactionID string               `json:"transaction_id"`
	ReceivableID  *string              `json:"receivable_id,omitempty"`
	PayableID     *string              `json:"payable_id,omitempty"`
	Status        string               `json:"status"`
	Preview       transactions.Preview `json:"preview"`
	ExpiresAt     string               `json:"expires_at"`
}

func newDraft(d *transactions.Draft) draft {
	return draft{TransactionID: d.TransactionID, ReceivableID: d.ReceivableID, PayableID: d.PayableID,
		Status: d.Status, Preview: d.Preview, ExpiresAt: d.ExpiresAt}
}
