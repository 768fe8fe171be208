// Package rail is the payment-rail adapter interface of transactions-svc
// (contract section 13). A rail moves the money of receivables and
// payables; the state machines (internal/txn) do not depend on which one:
// an adapter reports outcomes and the use cases apply them. Two adapters
// exist: the sandbox simulator (internal/sandbox) and Stripe
// (internal/rail/striperail).
package rail

import (
	"context"
	"errors"
)

// Provider names a rail.
type Provider string

// Providers.
const (
	Sandbox Provider = "sandbox"
	Stripe  Provider = "stripe"
)

// Outcome is an adapter's answer.
type Outcome string

// Outcomes.
const (
	// Approved: paid, verified or disbursed.
	Approved Outcome = "approved"
	// Declined: the payer's card or the recipient's check was refused; the
	// item waits for the customer again.
	Declined Outcome = "declined"
	// Error: the provider refused the operation for good (failed; a retry
	// may succeed).
	Error Outcome = "error"
	// Redirect: the customer continues on the provider's hosted page
	// (Result.URL); the outcome arrives later as an Event.
	Redirect Outcome = "redirect"
)

// ErrUnavailable reports a provider that did not answer (timeout, network,
// 5xx, circuit breaker open): nothing is known to have happened, and the
// same call with the same idempotency key may be made again.
var ErrUnavailable = errors.New("rail: the payment provider is unavailable")

// ErrKeyRefused reports a secret key the provider does not accept.
var ErrKeyRefused = errors.New("rail: the payment provider refused the key")

// Result is an adapter's answer to one call.
type Result struct {
	Outcome Outcome
	// Reason is the failure reason (card_declined, a provider's code, ...).
	Reason string
	// Reference is the provider's id of the payment, account or transfer.
	Reference string
	// URL is the provider's hosted page when Outcome is Redirect.
	URL string
	// Brand and Last4 describe the card of a sandbox charge.
	Brand, Last4 string
}

// Charge asks a rail to collect a receivable.
type Charge struct {
	ReceivableID string
	Amount       int64
	Currency     string
	Description  string
	// CardNumber is the sandbox form's card: read to pick the outcome, never
	// kept. Hosted rails take cards on their own pages.
	CardNumber string
	// Retry marks retry-payment.
	Retry bool
	// IdempotencyKey makes a repeated call create nothing twice.
	IdempotencyKey string
	// ReturnURL and CancelURL are where a hosted rail sends the payer back.
	ReturnURL, CancelURL string
}

// Verify asks a rail to check a payable's recipient before money moves.
type Verify struct {
	PayableID string
	// Last4 is the sandbox destination's last four digits.
	Last4 string
	// Account is the recipient's provider account, when one is known.
	Account string
	// AccountKey names the recipient for the provider's idempotency (a new
	// account is created once per recipient).
	AccountKey string
	// ReturnURL and RefreshURL are where hosted onboarding sends the
	// recipient back (done, or the onboarding link expired).
	ReturnURL, RefreshURL string
}

// Disbursement asks a rail to pay a payable out.
type Disbursement struct {
	PayableID string
	Amount    int64
	Currency  string
	// Last4 is the sandbox destination's last four digits; Attempt counts
	// the disbursements of the payable, 1 for the first.
	Last4   string
	Attempt int
	// Account is the recipient's provider account (hosted rails).
	Account        string
	IdempotencyKey string
}

// Adapter moves money on one rail. Calls to a remote provider are bounded
// by a timeout and a circuit breaker and carry the idempotency key of the
// request; ErrUnavailable means nothing is known to have happened.
type Adapter interface {
	Provider() Provider
	// Charge collects a receivable: the sandbox answers at once; a hosted
	// rail answers Redirect to its checkout page.
	Charge(ctx context.Context, c Charge) (Result, error)
	// Verify checks a payable's recipient: the sandbox checks the
	// destination; a hosted rail answers Approved for a recipient whose
	// account is ready, else Redirect to its onboarding.
	Verify(ctx context.Context, v Verify) (Result, error)
	// Disburse pays a payable out.
	Disburse(ctx context.Context, d Disbursement) (Result, error)
}

// EventKind is what a provider event means for Paylane.
type EventKind string

// Event kinds.
const (
	// Paid: a receivable's payment succeeded.
	Paid EventKind = "paid"
	// PaymentFailed: a receivable's payment failed (Reason).
	PaymentFailed EventKind = "payment_failed"
	// AccountReady: a recipient's account can receive transfers.
	AccountReady EventKind = "account_ready"
	// Transferred: a payable's transfer was made.
	Transferred EventKind = "transferred"
	// Ignored: an event Paylane does not act on.
	Ignored EventKind = "ignored"
)

// Event is a provider's webhook event, verified and read.
type Event struct {
	ID   string
	Type string
	Kind EventKind
	// ReceivableID or PayableID names the item the event is about.
	ReceivableID, PayableID string
	// Account is the recipient account of an AccountReady event.
	Account string
	// Reference is the provider's id of the payment or transfer.
	Reference string
	Reason    string
}
