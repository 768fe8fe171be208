// Package worker runs batch-svc's batch workers: goroutines that claim a
// batch from the queue (FOR UPDATE SKIP LOCKED, with a lease they renew),
// process it chunk by chunk through the use cases, and look for the next.
// A worker that dies stops renewing; another takes the batch over when the
// lease expires and resumes it from the first chunk not yet recorded.
package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/libs/ids"
)

// Options configure the workers.
type Options struct {
	App   *app.App
	Store *store.Store
	// Workers is how many batches one replica processes at once.
	Workers int
	// Lease is how long a claim holds without renewal; it is renewed every
	// third of it, and after every chunk.
	Lease time.Duration
	// PollInterval is how often an idle worker looks for batches besides
	// being woken by a local submission.
	PollInterval time.Duration
	Log          *slog.Logger
}

// Pool is the replica's workers.
type Pool struct {
	o    Options
	wake chan struct{}

	// mu serialises claims, so that running is exact when a worker picks
	// which tenants to skip; running counts this replica's workers busy
	// with each tenant's batches.
	mu      sync.Mutex
	running map[string]int
}

// New returns the workers of o.
func New(o Options) *Pool {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Pool{o: o, wake: make(chan struct{}, max(1, o.Workers)), running: map[string]int{}}
}

// Wake tells an idle worker that a batch was queued. It never blocks.
func (p *Pool) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run runs the workers until ctx ends; each finishes its chunk in flight
// and releases its batch first. The workers are long-lived loops, not tasks
// handed to a bounded group (errgroup.SetLimit): the per-tenant fairness
// lives in the pool, since each claim sees which tenants hold how many
// workers (claim) and skips those at PerTenant, which a group that only
// bounds how many run cannot know.
func (p *Pool) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range p.o.Workers {
		wg.Go(func() { p.loop(ctx) })
	}
	wg.Wait()
}

func (p *Pool) loop(ctx context.Context) {
	for ctx.Err() == nil {
		if p.RunOnce(ctx) {
			continue
		}
		t := time.NewTimer(p.o.PollInterval)
		select {
		case <-ctx.Done():
		case <-p.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// PerTenant is how many of a replica's workers one tenant's batches may
// hold at once: all but one, so that one worker is always left for the
// other tenants' batches however long one tenant's take (a downstream
// failing for it, retried for BATCH_RETRY_FOR); all of them with a
// single worker.
func PerTenant(workers int) int { return max(1, workers-1) }

// claim claims a batch of a tenant that holds fewer than PerTenant of the
// replica's workers, and counts it.
func (p *Pool) claim(ctx context.Context) (store.Claim, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var skip []string
	for tenant, n := range p.running {
		if n >= PerTenant(p.o.Workers) {
			skip = append(skip, tenant)
		}
	}
	now := time.Now()
	c, ok, err := p.o.Store.ClaimNext(ctx, now, now.Add(p.o.Lease), ids.New(), skip)
	if ok {
		p.running[c.TenantID]++
	}
	return c, ok, err
}

// done uncounts a claim of tenant.
func (p *Pool) done(tenant string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[tenant]--; p.running[tenant] <= 0 {
		delete(p.running, tenant)
	}
}

// RunOnce claims one batch and processes it; false when none was free.
func (p *Pool) RunOnce(ctx context.Context) bool {
	c, ok, err := p.claim(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.o.Log.Warn("claiming a batch", "err", err)
		}
		return false
	}
	if !ok {
		return false
	}
	defer p.done(c.TenantID)
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		p.renew(work, cancelWork, c)
	}()
	lease := app.Lease{Claim: c, Until: func() time.Time { return time.Now().Add(p.o.Lease) }}
	err = p.o.App.ProcessBatch(ctx, work, lease)
	cancelWork()
	<-renewed
	p.settle(ctx, c, err)
	return true
}

// settle deals with the end of a batch's processing: a worker stopping
// gives the batch back at once; any other failure leaves the lease to
// expire, which paces the retry by another worker (or this one).
func (p *Pool) settle(ctx context.Context, c store.Claim, err error) {
	switch {
	case err == nil:
	case ctx.Err() != nil:
		rel, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := p.o.Store.Release(rel, c, time.Now()); err != nil {
			p.o.Log.Warn("releasing a batch", "batch_id", c.BatchID, "err", err)
		}
	case errors.Is(err, batch.ErrLeaseLost):
		p.o.Log.Warn("batch taken over by another worker", "batch_id", c.BatchID, "tenant_id", c.TenantID)
	default:
		p.o.Log.Error("processing a batch", "batch_id", c.BatchID, "tenant_id", c.TenantID, "err", err)
	}
}

// renew extends the lease every third of it until ctx ends; a lost lease
// cancels the work.
func (p *Pool) renew(ctx context.Context, cancel context.CancelFunc, c store.Claim) {
	t := time.NewTicker(p.o.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := p.o.Store.Renew(ctx, c, time.Now().Add(p.o.Lease))
		if errors.Is(err, batch.ErrLeaseLost) {
			cancel()
			return
		}
		if err != nil && ctx.Err() == nil {
			p.o.Log.Warn("renewing a batch lease", "batch_id", c.BatchID, "err", err)
		}
	}
}
