package dispatch

import (
	"context"
	"sync"

	"github.com/paylane/paylane/webhook-svc/internal/store"
)

// maxRecordBatch bounds the outcomes one write stores; maxRecordWriters
// bounds the writes in flight at once.
const (
	maxRecordBatch   = 64
	maxRecordWriters = 4
)

// recorder stores the outcomes of attempts for the dispatcher's workers,
// many in one transaction (group commit). A worker whose outcome finds
// fewer than maxRecordWriters writes in progress writes at once; otherwise
// its outcome queues, and when a write ends the first queued worker writes
// everything queued (up to maxRecordBatch), and so on. Alone, an outcome is
// written at once; under load one commit covers many attempts, a few
// writes overlap (so an attempt does not wait for a whole write before its
// own starts), and no worker writes more than one batch.
type recorder struct {
	store     *store.Store
	disableAt int

	mu      sync.Mutex
	queue   []*recording
	writers int
}

// recording is one outcome waiting in the recorder.
type recording struct {
	tenantID string
	outcome  store.Outcome
	result   store.Recorded
	err      error
	// turn receives false when the outcome has been written by another
	// worker (result and err are set), true when this worker writes next
	// (its outcome is then off the queue). It receives exactly once.
	turn chan bool
}

func newRecorder(s *store.Store, disableAt int) *recorder {
	return &recorder{store: s, disableAt: disableAt}
}

// record stores o, an attempt of a delivery of tenantID, and returns what
// became of it.
func (r *recorder) record(ctx context.Context, tenantID string, o store.Outcome) (store.Recorded, error) {
	rec := &recording{tenantID: tenantID, outcome: o, turn: make(chan bool, 1)}
	r.mu.Lock()
	lead := r.writers < maxRecordWriters
	if lead {
		r.writers++
	} else {
		r.queue = append(r.queue, rec)
	}
	r.mu.Unlock()
	if !lead && !<-rec.turn {
		return rec.result, rec.err
	}
	// This worker writes: its own outcome (taken off the queue by whoever
	// handed it the turn) and what is queued, up to maxRecordBatch.
	r.mu.Lock()
	n := min(len(r.queue), maxRecordBatch-1)
	batch := append([]*recording{rec}, r.queue[:n]...)
	r.queue = append(r.queue[:0], r.queue[n:]...)
	r.mu.Unlock()

	r.write(ctx, batch)
	for _, b := range batch[1:] {
		b.turn <- false
	}

	r.mu.Lock()
	if len(r.queue) > 0 {
		next := r.queue[0]
		r.queue = append(r.queue[:0], r.queue[1:]...)
		next.turn <- true
	} else {
		r.writers--
	}
	r.mu.Unlock()
	return rec.result, rec.err
}

// write stores batch, one transaction per tenant. When a tenant's
// transaction fails, its outcomes are written one at a time, so one bad
// outcome does not take the others down with it.
func (r *recorder) write(ctx context.Context, batch []*recording) {
	var tenants []string
	byTenant := map[string][]*recording{}
	for _, rec := range batch {
		if _, ok := byTenant[rec.tenantID]; !ok {
			tenants = append(tenants, rec.tenantID)
		}
		byTenant[rec.tenantID] = append(byTenant[rec.tenantID], rec)
	}
	for _, tenantID := range tenants {
		recs := byTenant[tenantID]
		if r.writeTenant(ctx, tenantID, recs) == nil || len(recs) == 1 {
			continue
		}
		for _, rec := range recs {
			_ = r.writeTenant(ctx, tenantID, []*recording{rec})
		}
	}
}

// writeTenant stores the outcomes of recs, all of tenantID, in one
// transaction, and sets their results.
func (r *recorder) writeTenant(ctx context.Context, tenantID string, recs []*recording) error {
	outcomes := make([]store.Outcome, len(recs))
	for i, rec := range recs {
		outcomes[i] = rec.outcome
	}
	res, err := r.store.Record(ctx, tenantID, outcomes, r.disableAt)
	for i, rec := range recs {
		if err != nil {
			rec.result, rec.err = store.Recorded{}, err
			continue
		}
		rec.result, rec.err = res[i], nil
	}
	return err
}
