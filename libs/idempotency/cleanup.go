package idempotency

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Cleanup deletes the keys of every tenant older than Retention and returns
// how many. It runs without a tenant scope (it clears the setting itself):
// the table's expired_cleanup policy lets such a session delete expired rows
// and nothing else.
func Cleanup(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('app.tenant_id', '', true)"); err != nil {
			return err
		}
		// No WHERE: a WHERE on a column would need a SELECT policy, which
		// would let unscoped sessions read expired rows. The policy is the filter.
		tag, err := tx.Exec(ctx, "DELETE FROM idempotency_keys")
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("idempotency: deleting expired keys: %w", err)
	}
	return n, nil
}

// CleanupEvery runs Cleanup every interval until ctx is done, logging
// failures. Services start it next to their listeners.
func CleanupEvery(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := Cleanup(ctx, pool)
		if err != nil && ctx.Err() == nil {
			log.Warn("idempotency cleanup failed", "err", err)
			continue
		}
		if n > 0 {
			log.Info("idempotency keys expired", "deleted", n)
		}
	}
}
