// Package store keeps optin-svc's data in Postgres. Every method that
// touches tenant data hangs off Tx, which only Write and Read hand out: a
// transaction scoped to one tenant (tenancy), under row-level security.
// The one exception, ContactStanding, takes the tenant id and runs as a
// scoped tenancy.Batch (one round trip on the hot read). The few infrastructure tables without a tenant scope (the send queue, the
// tenants' sender numbers, the landing codes) are reached through Store's
// own methods, used by workers and public endpoints that learn the tenant
// from them. Violated constraints come back as the domain's errors.
package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/tenancy"
)

// Store opens tenant-scoped transactions on the app pool.
type Store struct {
	// ListCap is the largest list total counted exactly (listtotal; zero:
	// listtotal.DefaultCap). Tests set a small one.
	ListCap listtotal.Cap
	// lists remembers large lists' estimated totals (listtotal.Memo).
	lists listtotal.Memo

	pool *pgxpool.Pool
}

// New returns a store on the app pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Tx is a transaction scoped to one tenant.
type Tx struct {
	tx       pgx.Tx
	tenantID string
	listCap  listtotal.Cap
	lists    *listtotal.Memo
}

// TenantID is the tenant the transaction is scoped to.
func (t *Tx) TenantID() string { return t.tenantID }

// Write runs fn in the request's write transaction wtx (idempotency.InTx):
// the transaction of its Idempotency-Key (idempotency.Wrap), so the write
// commits together with the stored response, or, for the zero wtx, a
// read-write transaction of its own scoped to tenantID, committed when fn
// returns nil.
func (s *Store) Write(ctx context.Context, wtx idempotency.Tx, tenantID string, fn func(*Tx) error) error {
	return idempotency.InTx(ctx, wtx, s.pool, tenancy.Do, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID, listCap: s.ListCap, lists: &s.lists})
	})
}

// Read runs fn in a read-only transaction scoped to tenantID.
func (s *Store) Read(ctx context.Context, tenantID string, fn func(*Tx) error) error {
	return tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID, listCap: s.ListCap, lists: &s.lists})
	})
}

// Publish writes an event to the outbox in the transaction; the relay sends
// it to Kafka once the transaction commits.
func (t *Tx) Publish(ctx context.Context, env events.Envelope) error {
	if err := outbox.Add(ctx, t.tx, events.TopicFor(env.Type), env); err != nil {
		return fmt.Errorf("publishing %s: %w", env.Type, err)
	}
	return nil
}

// PublishAll writes events to the outbox in one statement, in their order.
func (t *Tx) PublishAll(ctx context.Context, envs []events.Envelope) error {
	if err := outbox.AddMany(ctx, t.tx, envs); err != nil {
		return fmt.Errorf("publishing %d events: %w", len(envs), err)
	}
	return nil
}

// ClaimAll records that consumer handled eventIDs in this transaction and
// returns the ids handled for the first time (sorted); the others were
// handled before and nothing must be done again.
func (t *Tx) ClaimAll(ctx context.Context, consumer string, eventIDs []string) ([]string, error) {
	return inbox.ClaimAll(ctx, t.tx, consumer, eventIDs)
}
