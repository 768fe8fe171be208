// Package store keeps batch-svc's data in Postgres. Tenant data is reached
// only through Tx, a transaction scoped to one tenant (tenancy) under
// row-level security. The queue (queue.go) is the one exception: the
// workers' claims across tenants, which hold ids and times only.
package store

import (
	"context"
	"errors"

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

// OnCommit runs fn after the transaction commits, when the transaction
// supports it (an Idempotency-Key's); it reports whether it will.
func (t *Tx) OnCommit(fn func()) bool { return tenancy.OnCommit(t.tx, fn) }

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

// Raw returns the transaction itself, for the outbox.
func (t *Tx) Raw() pgx.Tx { return t.tx }

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// Pool is the app pool the store uses (tests).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }
