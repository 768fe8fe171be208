// Package scheduler runs transactions-svc's timed work: scheduled sends at
// send_at, link expiry, draft expiry and campaign follow-up steps. The work
// sits in the due_work queue (ids only, no tenant data); every replica
// claims due rows with FOR UPDATE SKIP LOCKED, so replicas share the queue
// without doing a row twice at once, and does each row's work in the row's
// tenant scope (app.RunDue), where the item's state decides.
package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// Defaults of the loop.
const (
	DefaultInterval = time.Second
	// Lease is how long a claimed row stays invisible to other claimers;
	// a row whose work failed comes back after Lease times its attempts.
	Lease     = time.Minute
	batchSize = 100
)

// Scheduler claims and runs due work.
type Scheduler struct {
	store    *store.Store
	app      *app.App
	interval time.Duration
	log      *slog.Logger
}

// New returns a scheduler polling every interval (DefaultInterval when 0).
func New(s *store.Store, a *app.App, interval time.Duration, log *slog.Logger) *Scheduler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{store: s, app: a, interval: interval, log: log}
}

// RunOnce claims the rows due at the app's clock and runs them; it returns
// how many it completed. A row whose work fails is logged and left to come
// back after its lease.
func (s *Scheduler) RunOnce(ctx context.Context) (int, error) {
	claimed, err := s.store.Claim(ctx, s.app.Now(), Lease, batchSize)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, d := range claimed {
		if err := s.app.RunDue(ctx, d); err != nil {
			s.log.WarnContext(ctx, "scheduled work failed; it will be retried", "kind", d.Kind,
				"item_id", d.ItemID, "tenant_id", d.TenantID, "attempt", d.Attempts, "err", err)
			continue
		}
		if err := s.store.Done(ctx, d); err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

// Run polls until ctx is done. A full batch is followed at once by the
// next claim.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		n, err := s.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("claiming scheduled work failed", "err", err)
		}
		if n >= batchSize {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
