package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

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

// Error is an error answer of transactions-svc: the status and the envelope.
type Error struct {
	Status  int
	Code    string
	Message string
	Details json.RawMessage
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("transactions-svc answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Is makes errors.Is(err, ErrNotFound) true for a 404 resource_not_found.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound && e.Code == "resource_not_found"
}

// Fields returns the messages per field of a 422 validation_failed, or nil.
func (e *Error) Fields() map[string][]string {
	var f map[string][]string
	if e.Code != "validation_failed" || json.Unmarshal(e.Details, &f) != nil {
		return nil
	}
	return f
}

// StatusOf returns the HTTP status of a client error, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func decodeError(a answer) *Error {
	e := &Error{Status: a.status}
	var env struct {
		Error struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(a.body, &env) == nil {
		e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
	}
	return e
}
