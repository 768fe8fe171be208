// Package app holds transactions-svc's use cases, one per file. A use case
// validates its input with the domain's rules, opens one tenant-scoped
// transaction (store.Write or store.Read), loads what it changes FOR UPDATE,
// decides with the state machine, writes, and records the events of the
// change in the same transaction. It knows nothing of HTTP.
package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Scope is who a use case acts for: the tenant, its default currency and
// region (national phone formats), and the internal token of the request
// (passed on to contacts-svc); for a write, the request's write transaction
// (Tx, the zero idempotency.Tx when the request carries no
// Idempotency-Key), which the use case passes to the store.
type Scope struct {
	TenantID string
	Currency string
	Region   string
	Token    string
	// AIMaxAmount and AIDailyAmount are the tenant's AI gateway
	// guardrails in minor units (0: none).
	AIMaxAmount   int64
	AIDailyAmount int64
	Tx            idempotency.Tx
}

// WithTx returns the scope of a write in the request's write transaction tx.
func (s Scope) WithTx(tx idempotency.Tx) Scope {
	s.Tx = tx
	return s
}

// Contact is what transactions-svc keeps of a contact: its id and the
// recipient of the SMS.
type Contact struct {
	ID        string
	FirstName string
	LastName  string
	Phone     string
}

// ContactRef names a contact by id or by external id.
type ContactRef struct {
	ID         string
	ExternalID string
}

// Contacts resolves contact references against contacts-svc. Resolve
// returns txn.ErrContactNotFound for an unknown or deleted contact, and
// ErrUnavailable when contacts-svc cannot answer. FindOrCreateMany finds or
// creates the contacts of batch rows (ContactBatch).
type Contacts interface {
	Resolve(ctx context.Context, token string, ref ContactRef) (Contact, error)
	FindOrCreateMany(ctx context.Context, token string, b ContactBatch) ([]ContactAnswer, error)
}

// ErrUnavailable: a service this one depends on cannot answer now (503).
var ErrUnavailable = apierr.NewSentinel("app: a dependency is unavailable",
	apierr.Unavailable("A part of the platform is briefly unavailable; retry.", 1))

// App runs the use cases.
type App struct {
	store    *store.Store
	contacts Contacts
	links    *links.Signer
	now      func() time.Time
	// sandbox is the simulator rail of every transaction without a provider.
	sandbox rail.Adapter
	// rails reaches the tenants' payment providers (nil: none configured).
	rails *Rails
	// railOps counts every rail's answers (nil: not counted).
	railOps *railmetrics.Metrics
}

// New returns the use cases. now is the clock (time.Now in production; tests
// inject theirs so the scheduler's instants are theirs to choose).
func New(s *store.Store, contacts Contacts, signer *links.Signer, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	return &App{store: s, contacts: contacts, links: signer, now: now, sandbox: sandbox.Rail{}}
}

// WithRailMetrics makes a count the rail's answers on m and returns a.
// Call it while wiring, before a serves anything.
func (a *App) WithRailMetrics(m *railmetrics.Metrics) *App {
	a.railOps = m
	return a
}

// observeRail counts one answer of the rail that moves the item's money.
func (a *App) observeRail(it txn.Item, operation string, outcome rail.Outcome) {
	name := it.Rail
	if name == "" {
		name = string(rail.Sandbox)
	}
	var o string
	switch outcome {
	case rail.Approved:
		o = railmetrics.Succeeded
	case rail.Declined:
		o = railmetrics.Declined
	case rail.Redirect:
		return // the answer comes later, as the provider's event
	default:
		o = railmetrics.Error
	}
	a.railOps.Observe(name, operation, o)
}

// Now returns the clock's time as Postgres keeps it (UTC, microseconds), so
// what a use case returns equals what a later read returns.
func (a *App) Now() time.Time {
	return a.now().UTC().Truncate(time.Microsecond)
}

// Page selects part of a collection.
type Page struct {
	Limit, Offset int
}

// checkID answers txn.ErrNotFound for an id that is not a ULID, before any
// query: such an id names nothing.
func checkID(id string) error {
	if !ids.Valid(id) {
		return txn.ErrNotFound
	}
	return nil
}
