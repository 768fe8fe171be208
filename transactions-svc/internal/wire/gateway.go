package wire

import (
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Preview is the preview of a draft (contract section 11).
type Preview struct {
	RecipientName   string  `json:"recipient_name"`
	PhoneLast4      string  `json:"phone_last4"`
	AmountFormatted string  `json:"amount_formatted"`
	MessagePreview  string  `json:"message_preview"`
	SendAt          *string `json:"send_at"`
}

// Draft is the answer of prepare: the draft and its preview.
type Draft struct {
	TransactionID string  `json:"transaction_id"`
	ReceivableID  *string `json:"receivable_id,omitempty"`
	PayableID     *string `json:"payable_id,omitempty"`
	Direction     string  `json:"direction"`
	Status        string  `json:"status"`
	Preview       Preview `json:"preview"`
	ExpiresAt     string  `json:"expires_at"`
}

// Confirmed is the answer of confirm.
type Confirmed struct {
	TransactionID string `json:"transaction_id"`
	Status        string `json:"status"`
}

// Status is the answer of the status lookup.
type Status struct {
	TransactionID string                `json:"transaction_id"`
	Direction     string                `json:"direction"`
	Status        string                `json:"status"`
	Amount        int64                 `json:"amount"`
	Currency      string                `json:"currency"`
	LatestMessage *events.LatestMessage `json:"latest_message"`
}

// NewStatus renders the status of it.
func NewStatus(it txn.Item) Status {
	return Status{TransactionID: it.TransactionID, Direction: string(it.Direction), Status: string(it.Status),
		Amount: it.Amount, Currency: it.Currency, LatestMessage: latest(it.LatestMessage)}
}

// ItemIDs returns the receivable_id or payable_id pointer pair of it.
func ItemIDs(it txn.Item) (receivable, payable *string) {
	id := it.ID
	if it.Direction == txn.Payable {
		return nil, &id
	}
	return &id, nil
}

// Notification is an SMS transactions-svc asked optin-svc to send, as
// optin-svc reads it by the id its notification.requested event carries.
type Notification struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	To   string `json:"to"`
	Body string `json:"body"`
}
