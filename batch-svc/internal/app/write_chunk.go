package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// msgTooLarge is the row error of a single item the downstream refuses as
// too large.
const msgTooLarge = "The item is too large."

// unansweredError is a downstream that kept failing transiently for the
// whole retry bound: the batch machinery gives up on it.
type unansweredError struct {
	after time.Duration
	last  error
}

func (e *unansweredError) Error() string {
	return fmt.Sprintf("no answer for %s: %v", e.after, e.last)
}

func (e *unansweredError) Unwrap() error { return e.last }

// writeRows writes req's rows and returns one result per row, in order.
// A request the downstream refuses as too large (413) is split in halves,
// each written the same way, down to single items; a single item still
// refused becomes that row's error. Rows are written downstream under
// (batch id, row index) whatever the request they travel in, so a chunk
// resumed after a crash (sent whole, split the same way again) is answered
// from the downstream's record and no row is written twice; the caller
// records the chunk once, from the joined results.
func (a *App) writeRows(stop, work context.Context, w Writer, tenantID string, req WriteRequest) ([]RowResult, error) {
	results, err := a.writeWithRetry(stop, work, w, tenantID, req)
	if !errors.Is(err, batch.ErrTooLarge) {
		return results, err
	}
	if len(req.Items) == 1 {
		return []RowResult{{RowIndex: req.FirstRowIndex, Failed: true,
			Errors: map[string][]string{"item": {msgTooLarge}}}}, nil
	}
	half := len(req.Items) / 2
	a.d.Log.Warn("batch chunk too large downstream, splitting", "batch_id", req.BatchID, "tenant_id", tenantID,
		"first_row_index", req.FirstRowIndex, "items", len(req.Items))
	first, rest := req, req
	first.Items = req.Items[:half]
	rest.FirstRowIndex, rest.Items = req.FirstRowIndex+half, req.Items[half:]
	out, err := a.writeRows(stop, work, w, tenantID, first)
	if err != nil {
		return nil, err
	}
	more, err := a.writeRows(stop, work, w, tenantID, rest)
	if err != nil {
		return nil, err
	}
	return append(out, more...), nil
}

// writeWithRetry calls the writer until it answers or fails for good.
// Transient failures (timeouts, 5xx, an open circuit breaker) wait and try
// again, while stop lasts and for at most RetryFor after the first of
// them; then the downstream counts as down (*unansweredError). The bound
// restarts with a worker that resumes the batch.
func (a *App) writeWithRetry(stop, work context.Context, w Writer, tenantID string, req WriteRequest) ([]RowResult, error) {
	var giveUpAt time.Time
	for attempt := 0; ; attempt++ {
		results, err := w.Write(work, tenantID, req)
		if err == nil || !isTransient(err) {
			return results, err
		}
		now := a.d.Now()
		if attempt == 0 {
			giveUpAt = now.Add(a.d.RetryFor)
		}
		if !now.Before(giveUpAt) {
			return nil, &unansweredError{after: a.d.RetryFor, last: err}
		}
		delay := min(a.d.Retry.Delay(attempt), giveUpAt.Sub(now))
		a.d.Metrics.retried(req.Type)
		a.d.Log.Warn("batch chunk failed, retrying", "batch_id", req.BatchID, "tenant_id", tenantID,
			"first_row_index", req.FirstRowIndex, "attempt", attempt+1, "retry_in", delay.String(), "err", err)
		t := time.NewTimer(delay)
		select {
		case <-stop.Done():
			t.Stop()
			return nil, stop.Err()
		case <-work.Done(): // the lease was lost: another worker has the batch
			t.Stop()
			return nil, fmt.Errorf("%w: %w", batch.ErrLeaseLost, work.Err())
		case <-t.C:
		}
	}
}
