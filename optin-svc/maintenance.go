package optin

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/inbox"
)

const (
	// inboxRetention keeps consumed event ids well past any topic's
	// retention, so no redelivery outlives its claim.
	inboxRetention = 30 * 24 * time.Hour
	// pruneInterval is how often old inbox claims are deleted.
	pruneInterval = time.Hour
)

// pruneInboxEvery deletes old inbox claims every interval until ctx is done.
func pruneInboxEvery(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := inbox.Prune(ctx, pool, inboxRetention); err != nil && ctx.Err() == nil {
				log.Warn("pruning inbox", "err", err)
			}
		}
	}
}
