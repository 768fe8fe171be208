// Package store keeps webhook-svc's data in Postgres. Tenant data is reached
// only through Tx, a transaction scoped to one tenant (tenancy) under
// row-level security. Queue is the one exception: the dispatcher's work
// queue across tenants, which holds ids and times only (see the migration).
package store

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
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

	// turn is where ClaimDue's round of the tenants stands when more have
	// deliveries due than a claim takes: the last tenant it served.
	turnMu sync.Mutex
	turn   string
}

// New returns a store on the app pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Pool is the app pool the store uses.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

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
// the transaction of its Idempotency-Key (idempotency.Wrap or Run), so the
// write commits together with the stored response, or, for the zero wtx, a
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
