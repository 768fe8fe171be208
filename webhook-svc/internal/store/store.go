// Package store keeps webhook-svc's data in Postgres. Tenant data is reached
// only through Tx, a transaction scoped to one tenant (tenancy) under
// row-level security. Queue is the one exception: the dispatcher's work
// queue across tenants, which holds ids and times only (see the migration).
package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/tenancy"
)

// Store opens tenant-scoped transactions on the app pool.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store on the app pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Pool is the app pool the store uses.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Tx is a transaction scoped to one tenant.
type Tx struct {
	tx       pgx.Tx
	tenantID string
}

// TenantID is the tenant the transaction is scoped to.
func (t *Tx) TenantID() string { return t.tenantID }

var errTenantMismatch = errors.New("store: the request's transaction is scoped to another tenant")

type txKey struct{}

type scoped struct {
	tx       pgx.Tx
	tenantID string
}

// WithTx returns ctx carrying tx, a transaction scoped to tenantID, for Write
// to join: handlers that run idempotency.Run themselves use it.
func WithTx(ctx context.Context, tx pgx.Tx, tenantID string) context.Context {
	return context.WithValue(ctx, txKey{}, scoped{tx: tx, tenantID: tenantID})
}

// Write runs fn in a read-write transaction scoped to tenantID and commits
// when fn returns nil. When ctx carries the transaction of an
// Idempotency-Key (idempotency.Middleware or WithTx), fn runs in it instead,
// so the write commits together with the stored response.
func (s *Store) Write(ctx context.Context, tenantID string, fn func(*Tx) error) error {
	tx, scope, ok := idempotency.TxFrom(ctx)
	if !ok {
		var sc scoped
		sc, ok = ctx.Value(txKey{}).(scoped)
		tx, scope = sc.tx, sc.tenantID
	}
	if ok {
		if scope != tenantID {
			return errTenantMismatch
		}
		return fn(&Tx{tx: tx, tenantID: tenantID})
	}
	return tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID})
	})
}

// Read runs fn in a read-only transaction scoped to tenantID.
func (s *Store) Read(ctx context.Context, tenantID string, fn func(*Tx) error) error {
	return tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID})
	})
}
