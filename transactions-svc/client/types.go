package client

import "encoding/json"

// DraftInput is the body of prepare: a direction and the single-create body
// of a receivable or payable.
type DraftInput struct {
	Direction    string                     `json:"direction"`
	ContactID    string                     `json:"contact_id"`
	Amount       int64                      `json:"amount"`
	Currency     string                     `json:"currency,omitempty"`
	Description  string                     `json:"description,omitempty"`
	SendAt       string                     `json:"send_at,omitempty"`
	CustomFields map[string]json.RawMessage `json:"custom_fields,omitempty"`
}

// Preview is what the AI gateway shows before confirming.
type Preview struct {
	RecipientName   string  `json:"recipient_name"`
	PhoneLast4      string  `json:"phone_last4"`
	AmountFormatted string  `json:"amount_formatted"`
	MessagePreview  string  `json:"message_preview"`
	SendAt          *string `json:"send_at"`
}

// Draft is a prepared transaction (contract section 11's prepare answer).
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

// LatestMessage is the latest SMS of a transaction.
type LatestMessage struct {
	Status  string  `json:"status"`
	Channel string  `json:"channel"`
	SentAt  *string `json:"sent_at"`
}

// Status is a transaction's status (contract section 11).
type Status struct {
	TransactionID string         `json:"transaction_id"`
	Direction     string         `json:"direction"`
	Status        string         `json:"status"`
	Amount        int64          `json:"amount"`
	Currency      string         `json:"currency"`
	LatestMessage *LatestMessage `json:"latest_message"`
}
