package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// listen keeps a dedicated connection (outside the pool, which it would
// otherwise shrink) listening on Channel and signals wake for every
// notification, reconnecting after errors until ctx is done.
func (r *Relay) listen(ctx context.Context, wake chan<- struct{}) {
	for {
		err := r.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("outbox listener failed; reconnecting", "err", err)
		if !sleep(ctx, time.Second) {
			return
		}
	}
}

func (r *Relay) listenOnce(ctx context.Context, wake chan<- struct{}) error {
	conn, err := pgx.ConnectConfig(ctx, r.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	signal(wake) // rows committed before LISTEN took effect
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("waiting for notifications: %w", err)
		}
		signal(wake)
	}
}

// signal wakes the publishing loop without blocking; one pending wake is enough.
func signal(wake chan<- struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

// sleep waits d, or less when ctx ends first (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
