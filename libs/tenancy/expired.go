package tenancy

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ExpiredPolicy is the name of the policy that lets a session without a
// tenant scope delete a table's rows past their retention, and nothing else:
//
//	CREATE POLICY expired_cleanup ON t FOR DELETE USING (created_at < now() - interval '7 days');
const ExpiredPolicy = "expired_cleanup"

// DeleteExpired deletes the rows of table that its ExpiredPolicy lets a
// session without a tenant scope delete, and returns how many. The policy
// is the filter: a WHERE on a column would need a SELECT policy, which
// would let unscoped sessions read the rows.
func DeleteExpired(ctx context.Context, pool *pgxpool.Pool, table string) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('"+Setting+"', '', true)"); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM "+pgx.Identifier{table}.Sanitize())
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("tenancy: deleting expired rows of %s: %w", table, err)
	}
	return n, nil
}

// DeleteExpiredEvery runs DeleteExpired on each table every interval until
// ctx is done, logging failures and what it deleted. Services start it next
// to their listeners.
func DeleteExpiredEvery(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log *slog.Logger, tables ...string) {
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
		for _, table := range tables {
			n, err := DeleteExpired(ctx, pool, table)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Warn("deleting expired rows failed", "table", table, "err", err)
			case n > 0:
				log.Info("expired rows deleted", "table", table, "deleted", n)
			}
		}
	}
}
