// Package app holds contacts-svc's use cases, one per file. A use case
// validates its input with the domain's rules, opens one tenant-scoped
// transaction (store.Write or store.Read), decides and writes in it, and
// records the events the change emits in the same transaction. It knows
// nothing of HTTP.
package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
)

// Scope is who a use case acts for: the tenant, and the region national
// phone numbers are read in; for a write, the request's write transaction
// (Tx, the zero idempotency.Tx when the request carries no
// Idempotency-Key), which the use case passes to the store.
type Scope struct {
	TenantID string
	Region   string
	Tx       idempotency.Tx
}

// WithTx returns the scope of a write in the request's write transaction tx.
func (s Scope) WithTx(tx idempotency.Tx) Scope {
	s.Tx = tx
	return s
}

// OptIns answers a contact's opt-in status and consents, which optin-svc
// owns. NoOptIns stands in until it exists.
type OptIns interface {
	OptIn(ctx context.Context, tenantID string, c contact.Contact) (contact.OptIn, error)
}

// NoOptIns reports every contact as "none" with no consents: right while the
// deployment has no optin-svc.
type NoOptIns struct{}

// OptIn implements OptIns.
func (NoOptIns) OptIn(context.Context, string, contact.Contact) (contact.OptIn, error) {
	return contact.OptIn{Status: contact.OptInNone, Consents: []contact.Consent{}}, nil
}

// App runs the use cases.
type App struct {
	store  *store.Store
	optIns OptIns
	now    func() time.Time
	// bulkStatementTimeout bounds each statement of a bulk upsert
	// (BulkStatementTimeout).
	bulkStatementTimeout time.Duration
}

// New returns the use cases on a store; optIns answers the opt-in part of a
// contact read (NoOptIns when nil).
func New(s *store.Store, optIns OptIns) *App {
	if optIns == nil {
		optIns = NoOptIns{}
	}
	return &App{store: s, optIns: optIns, now: time.Now, bulkStatementTimeout: BulkStatementTimeout}
}

// WithBulkStatementTimeout sets the bound of each statement of a bulk
// upsert (BulkStatementTimeout by default) and returns a.
func (a *App) WithBulkStatementTimeout(d time.Duration) *App {
	a.bulkStatementTimeout = d
	return a
}

// timestamp returns now as Postgres keeps it (UTC, microseconds), so what a
// use case returns equals what a later read returns.
func (a *App) timestamp() time.Time {
	return a.now().UTC().Truncate(time.Microsecond)
}

// Page selects part of a collection.
type Page struct {
	Limit, Offset int
}

// checkID answers ErrNotFound for an id that is not a ULID, before any query:
// such an id names nothing (404, not a database error).
func checkID(id string) error {
	if !ids.Valid(id) {
		return contact.ErrNotFound
	}
	return nil
}

// rules loads what validating a contact needs.
func rules(ctx context.Context, tx *store.Tx, scope Scope) (contact.Rules, error) {
	defs, err := tx.AllDefinitions(ctx)
	if err != nil {
		return contact.Rules{}, err
	}
	return contact.Rules{Region: scope.Region, Definitions: defs}, nil
}

// claimIdentity returns the phone record of f.Phone and checks that no live
// contact other than self holds the phone or the external id.
func claimIdentity(ctx context.Context, tx *store.Tx, f contact.Fields, self string) (string, error) {
	id, err := tx.ClaimIdentity(ctx, f.Phone, f.ExternalID)
	if err != nil {
		return "", err
	}
	if err := identityTaken(id, self); err != nil {
		return "", err
	}
	return id.PhoneID, nil
}

// identityTaken is the *ValidationError naming each of the phone and the
// external id that a live contact other than self (empty for a new
// contact) holds, or nil.
func identityTaken(id store.Identity, self string) error {
	taken := map[string][]string{}
	if id.PhoneOwner != "" && id.PhoneOwner != self {
		taken["phone"] = []string{contact.MsgPhoneTaken}
	}
	if id.ExternalIDOwner != "" && id.ExternalIDOwner != self {
		taken["external_id"] = []string{contact.MsgExternalIDTaken}
	}
	if len(taken) > 0 {
		return &contact.ValidationError{Fields: taken}
	}
	return nil
}
