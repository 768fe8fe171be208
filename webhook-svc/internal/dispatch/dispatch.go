// Package dispatch sends webhook deliveries. A Dispatcher claims due
// deliveries from the queue (FOR UPDATE SKIP LOCKED, so several replicas
// share the work without sending one twice), reads each in its tenant's
// scope, signs and POSTs it over a pooled, SSRF-guarded client per
// endpoint, and records the attempt: success, the next retry on the
// schedule, or failure once attempts are exhausted. A circuit breaker per
// endpoint defers attempts while the endpoint keeps failing, without
// counting them.
package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"golang.org/x/sync/errgroup"
)

// Defaults of Options.
const (
	DefaultConcurrency     = 64
	DefaultPollInterval    = 250 * time.Millisecond
	DefaultLease           = 2 * time.Minute
	DefaultTimeout         = 15 * time.Second
	DefaultBreakerFailures = 5
	DefaultBreakerOpenFor  = 30 * time.Second
	idleEndpointAfter      = 10 * time.Minute
)

// Options configure a Dispatcher. Zero values take the defaults.
type Options struct {
	Store  *store.Store
	Sealer *sealer.Sealer
	Log    *slog.Logger
	// Metrics receives the dispatcher's metrics when set.
	Metrics prometheus.Registerer
	// Now is the clock of due times, signatures and records (time.Now).
	Now func() time.Time
	// Jitter draws a number in [0, 1) that spreads retry waits (math/rand).
	Jitter func() float64
	// Concurrency bounds the deliveries in flight.
	Concurrency int
	// PollInterval is how often the queue is polled besides wake-ups: it
	// finds deliveries another replica queued and retries that came due.
	PollInterval time.Duration
	// Lease is how long a claim holds a delivery; past it another
	// dispatcher may claim it (the holder died).
	Lease time.Duration
	// Timeout bounds one attempt (contract: 15 s).
	Timeout time.Duration
	// BreakerFailures is the number of failures in a row that opens an
	// endpoint's breaker; BreakerOpenFor is how long it stays open.
	BreakerFailures uint32
	BreakerOpenFor  time.Duration
	// TimeScale multiplies the retry schedule's waits and BreakerOpenFor:
	// 1 (the default, also for 0) is the contract's schedule; fault tests
	// compress time with a smaller factor.
	TimeScale float64
	// Transport configures the guarded HTTP transport of each endpoint.
	Transport netguard.Options
}

// Dispatcher sends due deliveries.
type Dispatcher struct {
	opts      Options
	log       *slog.Logger
	endpoints *endpoints
	metrics   *metrics
	recorder  *recorder
	freed     chan struct{}
	wake      chan struct{}
}

// New returns a dispatcher.
func New(o Options) (*Dispatcher, error) {
	if o.Store == nil || o.Sealer == nil {
		return nil, errors.New("dispatch: a store and a sealer are required")
	}
	o = withDefaults(o)
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := newMetrics(o.Metrics)
	if err != nil {
		return nil, err
	}
	return &Dispatcher{
		opts: o, log: log, metrics: m, freed: make(chan struct{}, 1), wake: make(chan struct{}, 1),
		endpoints: newEndpoints(o), recorder: newRecorder(o.Store, webhook.DisableThreshold),
	}, nil
}

func withDefaults(o Options) Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.BreakerFailures == 0 {
		o.BreakerFailures = DefaultBreakerFailures
	}
	if o.BreakerOpenFor <= 0 {
		o.BreakerOpenFor = DefaultBreakerOpenFor
	}
	if o.TimeScale <= 0 {
		o.TimeScale = 1
	}
	o.BreakerOpenFor = scale(o.BreakerOpenFor, o.TimeScale)
	if o.Transport.MaxConnsPerEndpoint <= 0 {
		o.Transport.MaxConnsPerEndpoint = o.Concurrency
	}
	return o
}

// scale multiplies d by f.
func scale(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }

// now is the clock as Postgres keeps time.
func (d *Dispatcher) now() time.Time { return d.opts.Now().UTC().Truncate(time.Microsecond) }

// Wake tells Run that deliveries were queued (the ingester calls it after
// its commit), so they go out without waiting for the next poll. It never
// blocks; wake-ups before Run looks are merged into one.
func (d *Dispatcher) Wake() { signal(d.wake) }

// Run dispatches until ctx is done: it wakes on Wake, on every poll interval
// (deliveries queued by other replicas, retries come due) and when slots
// free up, claims as many due deliveries as it has free slots and sends
// them concurrently. In-flight attempts finish (within the attempt timeout)
// before it returns.
func (d *Dispatcher) Run(ctx context.Context) error {
	ticker := time.NewTicker(d.opts.PollInterval)
	defer ticker.Stop()
	slots := newSlots(d.opts.Concurrency)
	defer slots.wait()
	lastPrune := time.Now()
	refill := max(1, d.opts.Concurrency/4)
	claim := true
	for {
		free := slots.free()
		if claim && free > 0 {
			n, err := d.dispatchDue(ctx, free, slots)
			if err != nil && ctx.Err() == nil {
				d.log.Warn("dispatching due deliveries", "err", err)
			}
			if err == nil && n == free {
				continue // the queue may hold more due work
			}
		}
		if time.Since(lastPrune) > time.Minute {
			d.endpoints.prune(idleEndpointAfter)
			lastPrune = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.wake:
			claim = true
		case <-ticker.C:
			claim = true
		case <-d.freed:
			// Refill in chunks: one claim and one read of the deliveries
			// per quarter of the slots, not per finished attempt. A wake-up
			// or the next poll claims for fewer free slots.
			free := slots.free()
			claim = free >= refill || free == d.opts.Concurrency
		}
	}
}

// RunOnce sends every delivery due now and returns how many it handled. It
// is Run without the waiting, for tests that drive an injected clock.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	total := 0
	for {
		slots := newSlots(d.opts.Concurrency)
		n, err := d.dispatchDue(ctx, d.opts.Concurrency, slots)
		slots.wait()
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// slots runs the attempts, at most Concurrency at once (errgroup's limit),
// and counts those in flight: Run claims only as many deliveries as there
// are free slots, which errgroup does not tell.
type slots struct {
	g        errgroup.Group
	size     int
	inFlight atomic.Int64
}

func newSlots(size int) *slots {
	s := &slots{size: size}
	s.g.SetLimit(size)
	return s
}

// free is how many attempts may start now without waiting.
func (s *slots) free() int { return s.size - int(s.inFlight.Load()) }

// start runs fn in a slot, waiting for one to free up; freed is called
// once fn has returned and its slot counts as free.
func (s *slots) start(fn, freed func()) {
	s.inFlight.Add(1)
	s.g.Go(func() error {
		defer func() {
			s.inFlight.Add(-1)
			freed()
		}()
		fn()
		return nil
	})
}

// wait waits for every attempt started.
func (s *slots) wait() { _ = s.g.Wait() } // attempts record their own outcome and return nil

// dispatchDue claims up to limit due deliveries and starts them, each
// holding a slot until it is recorded.
func (d *Dispatcher) dispatchDue(ctx context.Context, limit int, slots *slots) (int, error) {
	now := d.now()
	claims, err := d.opts.Store.ClaimDue(ctx, now, now.Add(d.opts.Lease), limit, ids.New())
	if err != nil || len(claims) == 0 {
		return 0, err
	}
	jobs, err := d.load(ctx, claims)
	if err != nil {
		return 0, err // the claims' lease runs out and they become due again
	}
	// Attempts run to completion (bounded by the timeout) even when ctx ends,
	// so a shutdown does not record half-made attempts.
	sendCtx := context.WithoutCancel(ctx)
	for _, c := range claims {
		job, ok := jobs[c.DeliveryID]
		slots.start(func() { d.handle(sendCtx, c, job, ok) }, func() { signal(d.freed) })
	}
	return len(claims), nil
}

// load reads the claimed deliveries, one pipelined round trip per tenant.
func (d *Dispatcher) load(ctx context.Context, claims []store.Claim) (map[string]store.Job, error) {
	byTenant := map[string][]string{}
	for _, c := range claims {
		byTenant[c.TenantID] = append(byTenant[c.TenantID], c.DeliveryID)
	}
	jobs := make(map[string]store.Job, len(claims))
	for tenantID, ids := range byTenant {
		found, err := d.opts.Store.Jobs(ctx, tenantID, ids)
		if err != nil {
			return nil, err
		}
		for id, j := range found {
			jobs[id] = j
		}
	}
	return jobs, nil
}

// signal sends on a channel of capacity one without blocking: a signal
// already pending stands for this one too.
func signal(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
