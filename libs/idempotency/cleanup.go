package idempotency

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/tenancy"
)

// Cleanup deletes the keys of every tenant older than Retention and returns
// how many. It runs without a tenant scope: the table's expired_cleanup
// policy lets such a session delete expired rows and nothing else
// (tenancy.DeleteExpired).
func Cleanup(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	n, err := tenancy.DeleteExpired(ctx, pool, "idempotency_keys")
	if err != nil {
		return 0, fmt.Errorf("idempotency: deleting expired keys: %w", err)
	}
	return n, nil
}

// CleanupEvery runs Cleanup every interval until ctx is done, logging
// failures. Services start it next to their listeners; a service with more
// tables to clean runs tenancy.DeleteExpiredEvery with "idempotency_keys"
// among them instead.
func CleanupEvery(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) {
	tenancy.DeleteExpiredEvery(ctx, pool, interval, log, "idempotency_keys")
}
