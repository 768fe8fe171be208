package idempotency

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tx is the write transaction of a request, passed explicitly from the
// handler Wrap guards to its use case and store. For a request with an
// Idempotency-Key it is the transaction that stores the key and the
// response (a savepoint of it), so the write, its outbox events and the
// stored response commit together. The zero Tx belongs to a request without
// a key, and to every write outside a request: InTx then opens a
// transaction of its own.
type Tx struct {
	tx       pgx.Tx
	tenantID string
	oneShot  bool
}

// TenantID is the tenant the transaction is scoped to ("" for the zero Tx).
func (t Tx) TenantID() string { return t.tenantID }

// OneShot reports whether t is Wrap's one-round-trip attempt (Speculate):
// its statements are sent with COMMIT, and if the transaction fails the
// handler runs again with a Tx that is not one shot. A store may then queue
// a statement whose result it does not wait for, and make it fail when its
// assumption does not hold (a division by zero, a violated constraint)
// instead of reading the result.
func (t Tx) OneShot() bool { return t.oneShot }

// Open opens a transaction scoped to tenantID on pool and runs fn in it:
// tenancy.Do or tenancy.Pipelined.
type Open func(ctx context.Context, pool *pgxpool.Pool, tenantID string, fn func(pgx.Tx) error) error

// ErrTenantMismatch is InTx's refusal to join a write transaction scoped to
// another tenant than the write's.
var ErrTenantMismatch = errors.New("idempotency: the request's transaction is scoped to another tenant")

// InTx is the one join point of a write: it runs fn in t when t is a
// request's write transaction (scoped to tenantID, else ErrTenantMismatch),
// and otherwise in a transaction open opens on pool, committed when fn
// returns nil. Every store's write method goes through it.
func InTx(ctx context.Context, t Tx, pool *pgxpool.Pool, open Open, tenantID string, fn func(pgx.Tx) error) error {
	if t.tx == nil {
		return open(ctx, pool, tenantID, fn)
	}
	if t.tenantID != tenantID {
		return ErrTenantMismatch
	}
	return fn(t.tx)
}
