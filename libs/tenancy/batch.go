package tenancy

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Batch sends the queued statements of b in one transaction scoped to tenantID,
// all in a single pipelined round trip: set_config and b's statements go out
// together before one Sync (plus, once per connection, the preparation of new
// statements). The extended protocol runs the statements before a Sync as one
// implicit transaction, committed at the Sync, so the tenant setting (local to
// the transaction) covers every statement and ends with them: no BEGIN and
// COMMIT of their own, two statements fewer for the server on every read.
// Results reach the callbacks queued on b (QueuedQuery.Query, QueryRow, Exec)
// in order. When a statement fails, the server skips the rest and the
// transaction is rolled back; the first error is returned. b must not hold
// transaction control statements.
//
// Use it on hot paths where the statements do not depend on each other's
// results. A callback's error is returned too, but by then the server has
// already committed: a decision that needs a result before committing
// belongs in Do.
func Batch(ctx context.Context, pool *pgxpool.Pool, tenantID string, b *pgx.Batch) error {
	if err := validTenantID(tenantID); err != nil {
		return err
	}
	full := &pgx.Batch{QueuedQueries: make([]*pgx.QueuedQuery, 0, len(b.QueuedQueries)+1)}
	full.Queue("SELECT set_config('"+Setting+"', $1, true)", tenantID)
	full.QueuedQueries = append(full.QueuedQueries, b.QueuedQueries...)

	// The Sync ends the implicit transaction either way (committed, or rolled
	// back after a failure): the connection goes back to the pool idle.
	return pool.SendBatch(ctx, full).Close()
}
