// Package app holds optin-svc's use cases, one concern per file. A use case
// validates its input, opens one tenant-scoped transaction (store.Write or
// store.Read), decides and writes in it, and records the events the change
// emits in the same transaction. Calls to other services (contacts-svc,
// transactions-svc, the SMS provider) happen outside any transaction. It knows nothing of HTTP.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// Scope is who a use case acts for.
type Scope struct {
	TenantID string
	// Region reads national phone numbers (the tenant's default region).
	Region string
	// Token is the caller's internal JWT, passed on to contacts-svc; empty
	// in background work, where a service token is used instead.
	Token string
	// RequestID travels into the events.
	RequestID string
	// Tx is the request's write transaction (the zero idempotency.Tx when
	// the request carries no Idempotency-Key, and in background work),
	// which a write use case passes to the store.
	Tx idempotency.Tx
}

// WithTx returns the scope of a write in the request's write transaction tx.
func (s Scope) WithTx(tx idempotency.Tx) Scope {
	s.Tx = tx
	return s
}

// Contacts is what optin-svc needs of contacts-svc.
type Contacts interface {
	// PhoneNumber returns the E.164 number of the tenant's phone record
	// phoneID; an unknown id is an error wrapping optin.ErrUnknownPhone.
	PhoneNumber(ctx context.Context, tenantID, token, phoneID string) (string, error)
	// FindOrCreateByPhone returns the id of the tenant's live contact with
	// the number, creating one when there is none.
	FindOrCreateByPhone(ctx context.Context, tenantID, token, e164 string) (string, error)
}

// Transactions is what optin-svc needs of transactions-svc: the numbers
// and texts of notifications, which their notification.requested events
// (ids only) leave out.
type Transactions interface {
	// Notifications returns the recipient's number and the text of each of
	// the tenant's notifications among ids (distinct), by id; unknown and
	// expired ones are absent. Any error is transient.
	Notifications(ctx context.Context, tenantID string, ids []string) (map[string]optin.NotificationText, error)
}

// Deps are what the use cases run on.
type Deps struct {
	Store    *store.Store
	Contacts Contacts
	// Transactions reads the notifications of notification.requested.
	Transactions Transactions
	// Identity reads tenants the local copy does not have yet.
	Identity Identity
	// Provider sends SMS (sms.Sink when nil).
	Provider sms.Provider
	Sending  Sending
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	Log *slog.Logger
	// Metrics counts provider calls and delivery reports (nil: not counted).
	Metrics *Metrics
}

// Sending configures the messages.
type Sending struct {
	// DefaultFrom is the sender number of tenants without their own.
	DefaultFrom string
	// DefaultTenant receives inbound messages to DefaultFrom that no
	// conversation assigns to a tenant ("" for none).
	DefaultTenant string
	// MaxAttempts bounds the provider calls of one message (at least 1).
	MaxAttempts int
	// RetryBase is the first retry delay; each later one doubles up to maxRetryDelay.
	RetryBase time.Duration
	// PublicBaseURL is the public host: opt-in code URLs, the status
	// callback URL and the URL of inbound signatures.
	PublicBaseURL string
	// DefaultRegion reads national numbers of tenants without a region.
	DefaultRegion string
}

// App runs the use cases.
type App struct {
	store        *store.Store
	contacts     Contacts
	transactions Transactions
	identity     Identity
	provider     sms.Provider
	sending      Sending
	now          func() time.Time
	log          *slog.Logger
	metrics      *Metrics
	// wake tells the dispatcher that a message was queued.
	wake chan struct{}
}

// New returns the use cases on their dependencies.
func New(d Deps) *App {
	a := &App{store: d.Store, contacts: d.Contacts, transactions: d.Transactions, identity: d.Identity, provider: d.Provider, sending: d.Sending,
		now: d.Now, log: d.Log, metrics: d.Metrics, wake: make(chan struct{}, 1)}
	if a.provider == nil {
		a.provider = sms.Sink{}
	}
	if a.sending.MaxAttempts < 1 {
		a.sending.MaxAttempts = 1
	}
	if a.sending.RetryBase <= 0 {
		a.sending.RetryBase = time.Second
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.sending.DefaultRegion == "" {
		a.sending.DefaultRegion = "US"
	}
	return a
}

// timestamp returns now as Postgres keeps it (UTC, microseconds), so what a
// use case returns equals what a later read returns.
func (a *App) timestamp() time.Time {
	return a.now().UTC().Truncate(time.Microsecond)
}

// publish records an event of the tenant in tx; without a request id of
// the caller's, the one of ctx (the request being served) travels along.
func publish(ctx context.Context, tx *store.Tx, typ, requestID string, data any) error {
	env, err := newEvent(ctx, tx.TenantID(), typ, requestID, data)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, env)
}

// newEvent builds an event of the tenant, as publish records it.
func newEvent(ctx context.Context, tenantID, typ, requestID string, data any) (events.Envelope, error) {
	if requestID == "" {
		requestID = reqid.From(ctx)
	}
	env, err := events.New(typ, tenantID, requestID, data)
	if err != nil {
		return events.Envelope{}, fmt.Errorf("building %s event: %w", typ, err)
	}
	return env, nil
}

// Page selects part of a collection.
type Page struct {
	Limit, Offset int
}

// ValidationError lists the problems of an input by field.
type ValidationError struct {
	Fields map[string][]string
}

func (e *ValidationError) Error() string { return "validation failed" }

// APIError answers 422 validation_failed with the fields' messages.
func (e *ValidationError) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// invalid returns a ValidationError naming one field.
func invalid(field, msg string) *ValidationError {
	return &ValidationError{Fields: map[string][]string{field: {msg}}}
}
