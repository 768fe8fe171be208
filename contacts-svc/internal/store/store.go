// Package store keeps contacts-svc's data in Postgres. Every method that
// touches tenant data hangs off Tx, which only Write and Read hand out: a
// transaction scoped to one tenant (tenancy), under row-level security. The
// one exception, ReadContact, takes the tenant id and runs as a scoped
// tenancy.Batch. There is no way to query a tenant table through this
// package without a scope. Violated constraints come back as the domain's
// errors.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/tenancy"
)

// Store opens tenant-scoped transactions on the app pool.
type Store struct {
	// ListCap is the largest list total counted exactly (listtotal; zero:
	// listtotal.DefaultCap). Tests set a small one.
	ListCap listtotal.Cap
	// lists remembers large lists' estimated totals (listtotal.Memo),
	// estimated by estimateContacts.
	lists listtotal.Memo

	pool        *pgxpool.Pool
	relay       *outbox.Relay
	definitions *definitionCache
	phones      *phoneIDs
}

// New returns a store on the app pool. relay, the outbox relay of the
// process (nil when it runs none), is woken after every commit that added
// events.
func New(pool *pgxpool.Pool, relay *outbox.Relay) *Store {
	return &Store{lists: listtotal.Memo{Estimate: estimateContacts}, pool: pool, relay: relay,
		definitions: newDefinitionCache(definitionTTL), phones: newPhoneIDs()}
}

// Tx is a transaction scoped to one tenant.
type Tx struct {
	tx       pgx.Tx
	tenantID string
	store    *Store
	// wroteDefinitions keeps the transaction's own, uncommitted
	// definitions out of the cache.
	wroteDefinitions bool
	// oneShot: the write is idempotency.Wrap's one-round-trip attempt
	// (idempotency.Tx.OneShot).
	oneShot bool
}

// TenantID is the tenant the transaction is scoped to.
func (t *Tx) TenantID() string { return t.tenantID }

// Write runs fn in the request's write transaction wtx (idempotency.InTx):
// the transaction of its Idempotency-Key (idempotency.Wrap, pipelined), so
// the write commits together with the stored response, or, for the zero
// wtx, a read-write transaction of its own scoped to tenantID, committed
// when fn returns nil. The transaction is pipelined (tenancy.Pipelined):
// BEGIN travels with the first statement, outbox inserts with COMMIT.
func (s *Store) Write(ctx context.Context, wtx idempotency.Tx, tenantID string, fn func(*Tx) error) error {
	return timedOut(idempotency.InTx(ctx, wtx, s.pool, tenancy.Pipelined, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID, store: s, oneShot: wtx.OneShot()})
	}))
}

// ErrStatementTimedOut: Postgres cancelled a statement that ran past the
// transaction's bound (Tx.BoundStatements); the transaction rolled back.
var ErrStatementTimedOut = errors.New("store: statement timed out")

// timedOut wraps err in ErrStatementTimedOut when Postgres cancelled the
// statement (query_canceled, 57014: statement_timeout; a cancel sent for a
// ctx that ended reports ctx's error instead).
func timedOut(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "57014" {
		return fmt.Errorf("%w: %w", ErrStatementTimedOut, err)
	}
	return err
}

// Read runs fn in a read-only transaction scoped to tenantID.
func (s *Store) Read(ctx context.Context, tenantID string, fn func(*Tx) error) error {
	return tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID, store: s})
	})
}

// Publish writes an event to the outbox in the transaction (sent with the
// commit) and wakes the relay once the transaction has committed.
func (t *Tx) Publish(ctx context.Context, env events.Envelope) error {
	if err := outbox.Add(ctx, t.tx, events.TopicFor(env.Type), env); err != nil {
		return fmt.Errorf("publishing %s: %w", env.Type, err)
	}
	tenancy.OnCommit(t.tx, t.store.relay.Wake)
	return nil
}
