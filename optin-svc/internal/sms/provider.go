// Package sms holds the SMS provider adapters (sink, twilio) behind one
// interface, and Twilio's request signature, which the inbound and status
// callbacks are verified with.
package sms

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Outgoing is one SMS to hand to a provider.
type Outgoing struct {
	// MessageID is optin-svc's id of the message.
	MessageID string
	To, From  string
	Body      string
	// StatusCallback is the URL the provider reports delivery to ("" for none).
	StatusCallback string
}

// Result is a provider's acceptance of a message.
type Result struct {
	// ProviderMessageID is the provider's id of the message (Twilio's SID).
	ProviderMessageID string
	// Delivered reports the message delivered at once (the sink); otherwise
	// it is sent and delivery is reported later by the status callback.
	Delivered bool
}

// Provider sends SMS.
type Provider interface {
	// Name labels the messages it sent (sink, twilio).
	Name() string
	// Send hands msg to the provider. A refusal is an *Error telling
	// whether a retry may succeed.
	Send(ctx context.Context, msg Outgoing) (Result, error)
}

// Error is a provider's refusal or a failure to reach it.
type Error struct {
	// Transient errors (5xx, 429, timeouts, connection failures) may
	// succeed on a retry; the others will not.
	Transient bool
	// Status is the provider's HTTP status (0 when none came back).
	Status int
	// Code is the provider's error code, if any (Twilio's numeric code).
	Code string
	// Reason is a short text for the message's failure_reason; it never
	// carries a phone number or a credential.
	Reason string
	// RetryAfter is the provider's requested wait (0 when none).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("sms provider: %s (status %d, code %s, transient %v)", e.Reason, e.Status, e.Code, e.Transient)
}

// AsError returns err as an *Error; an error of any other kind (a bug, a
// cancelled context) counts as transient.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Transient: true, Reason: "provider call failed"}
}
