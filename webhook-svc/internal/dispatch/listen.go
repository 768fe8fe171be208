package dispatch

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/webhook-svc/internal/store"
)

// listen keeps a dedicated connection listening on store.Channel and
// signals wake on every notification (a commit that queued deliveries),
// reconnecting after errors until ctx is done.
func (d *Dispatcher) listen(ctx context.Context, wake chan<- struct{}) {
	for {
		err := d.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		d.log.Warn("dispatch listener failed; reconnecting", "err", err)
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (d *Dispatcher) listenOnce(ctx context.Context, wake chan<- struct{}) error {
	conn, err := pgx.ConnectConfig(ctx, d.opts.Store.Pool().Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+store.Channel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	signal(wake)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return fmt.Errorf("waiting for notifications: %w", err)
		}
		signal(wake)
	}
}

func signal(wake chan<- struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}
