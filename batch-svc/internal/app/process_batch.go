package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
)

// Lease is how a worker holds a claimed batch: Renew extends the lease in
// the transaction that records a chunk (so only the holder records), and
// Until is how far each extension reaches.
type Lease struct {
	Claim store.Claim
	Until func() time.Time
}

// ProcessBatch runs a claimed batch to its end: it moves a queued batch
// to processing, sends each chunk not yet recorded to the type's writer,
// one at a time in row order, records every chunk's outcome (row errors,
// counters) in one transaction that also checks the lease, and finishes
// the batch. stop ends the work between chunks (a shutting-down worker):
// ProcessBatch then returns stop's error and the caller releases the
// lease. A chunk in flight is finished and recorded first; its downstream
// call and recording run on work, which outlives stop. A lost lease
// returns batch.ErrLeaseLost.
func (a *App) ProcessBatch(stop, work context.Context, l Lease) error {
	c := l.Claim
	var h batch.Header
	var pending []int
	err := a.d.Store.Write(work, idempotency.Tx{}, c.TenantID, func(tx *store.Tx) error {
		var err error
		if h, err = tx.LockBatch(work, c.BatchID); err != nil {
			return err
		}
		if h.Status.Final() { // finished, but its queue row outlived it
			return tx.Unqueue(work, c)
		}
		if err := tx.Start(work, c.BatchID, a.now()); err != nil {
			return err
		}
		pending, err = tx.PendingChunks(work, c.BatchID)
		return err
	})
	if err != nil || h.Status.Final() {
		return err
	}
	w := a.d.Writers[h.Type]
	if w == nil {
		return a.finish(work, l, batch.Failed, "Batches of this type cannot be processed by this deployment.")
	}
	if len(pending) == 0 {
		return a.finish(work, l, "", "")
	}
	// The chunks reach the downstream one after another, in row order (a
	// row's outcome may depend on earlier rows: duplicates, a phone taken),
	// while batch-svc's own work overlaps with them: the next chunk is read
	// while one is written downstream, and a chunk's outcome is recorded
	// while the next one is written. A crash may then leave two chunks
	// written downstream but not recorded here; both are sent again on
	// resume and answered from the downstream's record.
	next := a.readChunk(work, h, pending[0])
	recorded := done(nil)
	for k, idx := range pending {
		if err := stop.Err(); err != nil {
			return errors.Join(err, <-recorded)
		}
		got := <-next
		if got.err != nil {
			return errors.Join(got.err, <-recorded)
		}
		if k+1 < len(pending) {
			next = a.readChunk(work, h, pending[k+1])
		}
		out, err := a.writeOut(stop, work, w, h, got.chunk)
		if rerr := <-recorded; rerr != nil {
			return rerr
		}
		if reason, ok := machineryFailure(err, h, idx); ok {
			a.d.Log.Error("batch chunk failed for good, failing the batch", "batch_id", c.BatchID,
				"tenant_id", c.TenantID, "chunk", idx, "err", err)
			return a.finish(work, l, batch.Failed, reason)
		}
		if err != nil {
			return err
		}
		recorded = a.recordChunk(work, l, h, idx, out)
	}
	if err := <-recorded; err != nil {
		return err
	}
	return a.finish(work, l, "", "")
}

// done returns a channel that yields err once.
func done(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}

// readResult is a chunk read from the store, or why it could not be.
type readResult struct {
	chunk batch.Chunk
	err   error
}

// readChunk reads chunk idx of the batch in the background.
func (a *App) readChunk(work context.Context, h batch.Header, idx int) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		var r readResult
		r.err = a.d.Store.Read(work, h.TenantID, func(tx *store.Tx) error {
			var err error
			r.chunk, err = tx.Chunk(work, h.ID, idx)
			return err
		})
		ch <- r
	}()
	return ch
}

// recordChunk records chunk idx's outcome in the background, in one
// transaction that first checks the worker still holds the batch.
func (a *App) recordChunk(work context.Context, l Lease, h batch.Header, idx int, out store.ChunkOutcome) <-chan error {
	ch := make(chan error, 1)
	go func() {
		ch <- a.d.Store.Write(work, idempotency.Tx{}, h.TenantID, func(tx *store.Tx) error {
			if err := tx.HoldLease(work, l.Claim, l.Until()); err != nil {
				return err
			}
			_, err := tx.RecordChunk(work, h.ID, idx, out, a.now())
			return err
		})
	}()
	return ch
}

// machineryFailure returns the failure_reason of a chunk's error that ends
// the batch failed: the downstream refused the chunk for good, or did not
// answer within the retry bound. ok is false for any other error.
func machineryFailure(err error, h batch.Header, idx int) (reason string, ok bool) {
	first := idx * batch.ChunkSize
	var down *unansweredError
	switch {
	case errors.As(err, &down):
		return fmt.Sprintf("The %s service did not answer for %s; rows %d to %d may not have been written.",
			ownerOf(h.Type), down.after, first, h.TotalItems-1), true
	case errors.Is(err, batch.ErrRejected):
		return fmt.Sprintf("The %s service refused rows %d to %d of the batch.",
			ownerOf(h.Type), first, min(first+batch.ChunkSize, h.TotalItems)-1), true
	}
	return "", false
}

// writeOut sends chunk downstream (retrying transient failures with
// backoff until it is answered, stop ends or the retry bound passes;
// splitting it down to the rows the downstream refuses or fails on, which
// become row errors) and returns its outcome.
func (a *App) writeOut(stop, work context.Context, w Writer, h batch.Header, chunk batch.Chunk) (store.ChunkOutcome, error) {
	req := WriteRequest{
		BatchID: h.ID, Type: h.Type, Options: h.Options, FirstRowIndex: chunk.FirstRowIndex,
		EmitEvents: !h.Options.SuppressWebhooks, Items: chunk.Items,
	}
	started := time.Now()
	results, err := a.writeChunk(stop, work, w, h.TenantID, req)
	if err != nil {
		return store.ChunkOutcome{}, err
	}
	out, err := outcome(chunk, results)
	if err != nil {
		return store.ChunkOutcome{}, err
	}
	a.d.Metrics.observeChunk(h.Type, time.Since(started), out.Succeeded, out.Failed)
	return out, nil
}

// finish ends the batch: status (or, when empty, what its counters say),
// with reason when failed; the summary event unless per-record webhooks
// were asked for; the batch leaves the queue; and its submitted items are
// deleted (only the header and the row errors outlive processing).
func (a *App) finish(ctx context.Context, l Lease, status batch.Status, reason string) error {
	c := l.Claim
	wakeRelay := false
	var final batch.Header
	err := a.d.Store.Write(ctx, idempotency.Tx{}, c.TenantID, func(tx *store.Tx) error {
		h, err := tx.LockBatch(ctx, c.BatchID)
		if err != nil {
			return err
		}
		if err := tx.Unqueue(ctx, c); err != nil {
			return err
		}
		if status == "" {
			status = h.FinalStatus()
		}
		var why *string
		if status == batch.Failed {
			why = &reason
		}
		if h, err = tx.Finish(ctx, c.BatchID, status, why, a.now()); err != nil {
			return err
		}
		if err := tx.DropChunks(ctx, c.BatchID); err != nil {
			return err
		}
		final = h
		if !h.Options.SuppressWebhooks {
			return nil
		}
		wakeRelay = true
		return a.addCompletedEvent(ctx, tx, h)
	})
	if err != nil {
		return err
	}
	a.d.Metrics.finishedBatch(final.Type, final.Status)
	if wakeRelay {
		wake(a.d.WakeRelay)
	}
	return nil
}

// ownerOf names the service that writes a batch type's records.
func ownerOf(t batch.Type) string {
	if t == batch.Contacts {
		return "contacts"
	}
	return "transactions"
}
