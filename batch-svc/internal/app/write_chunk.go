package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// Row errors of single items the downstream would not take.
const (
	msgTooLarge   = "The item is too large."
	msgUnwritable = "The item could not be processed."
	msgRefused    = "The item was refused."
)

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

// errEveryRowFailed is a chunk none of whose rows the downstream could
// write (each failed with a 5xx): the downstream is failing, not a row.
var errEveryRowFailed = errors.New("the downstream failed every row of the chunk")

// chunkWrite is the writing of one chunk: the worker's contexts, and the
// retry bound of transient failures, which starts at the first of a run
// of them and restarts once the downstream answers again.
type chunkWrite struct {
	a          *App
	stop, work context.Context
	w          Writer
	tenantID   string
	failing    time.Time // first transient failure of the current run; zero when none
	attempt    int
}

// writeChunk writes req's rows and returns one result per row, in order.
// A chunk every row of which the downstream failed (5xx) is sent again
// after a delay, within the retry bound like any transient failure.
func (a *App) writeChunk(stop, work context.Context, w Writer, tenantID string, req WriteRequest) ([]RowResult, error) {
	cw := &chunkWrite{a: a, stop: stop, work: work, w: w, tenantID: tenantID}
	for {
		results, failed, err := cw.rows(req)
		if err != nil {
			return nil, err
		}
		if failed < len(results) || len(results) == 0 {
			return results, nil
		}
		if err := cw.wait(req, errEveryRowFailed); err != nil {
			return nil, err
		}
	}
}

// rows writes req's rows and returns one result per row, in order, and
// how many rows failed because the downstream failed them (5xx) rather
// than refused them.
//
// A request the downstream refuses as too large (413), refuses for its
// content (another row-level 4xx) or fails (500) is split in halves, each
// written the same way, down to single items: a single item still refused
// becomes that row's error (with the downstream's messages per field, when
// it gave some); a single item still failed becomes a row error too
// ("The item could not be processed."), counted in failed so that the
// caller can tell a poisoned row from a failing downstream. Rows are
// written downstream under (batch id, row index) whatever the request they
// travel in, so a chunk resumed after a crash (sent whole, split the same
// way again) is answered from the downstream's record and no row is
// written twice; the caller records the chunk once, from the joined
// results.
func (cw *chunkWrite) rows(req WriteRequest) ([]RowResult, int, error) {
	results, err := cw.retry(req)
	if err == nil {
		return results, 0, nil
	}
	var refused *batch.RefusedError
	single := len(req.Items) == 1
	switch {
	case errors.Is(err, batch.ErrTooLarge):
		if single {
			return []RowResult{rowFailure(req, "item", msgTooLarge)}, 0, nil
		}
	case errors.As(err, &refused):
		if single {
			return []RowResult{refusedRow(req, refused.Fields)}, 0, nil
		}
	case errors.Is(err, batch.ErrServerFailed):
		if single {
			return []RowResult{rowFailure(req, "item", msgUnwritable)}, 1, nil
		}
	default:
		return nil, 0, err
	}
	half := len(req.Items) / 2
	cw.a.d.Log.Warn("batch chunk refused or failed downstream, splitting", "batch_id", req.BatchID,
		"tenant_id", cw.tenantID, "first_row_index", req.FirstRowIndex, "items", len(req.Items), "err", err)
	first, rest := req, req
	first.Items = req.Items[:half]
	rest.FirstRowIndex, rest.Items = req.FirstRowIndex+half, req.Items[half:]
	out, failedFirst, err := cw.rows(first)
	if err != nil {
		return nil, 0, err
	}
	more, failedRest, err := cw.rows(rest)
	if err != nil {
		return nil, 0, err
	}
	return append(out, more...), failedFirst + failedRest, nil
}

// rowFailure is a row error of req's single item.
func rowFailure(req WriteRequest, field, message string) RowResult {
	return RowResult{RowIndex: req.FirstRowIndex, Failed: true, Errors: map[string][]string{field: {message}}}
}

// refusedRow is the row error of req's single item refused with fields:
// the downstream's messages, their field names without the "items.N."
// a bulk route may put before them.
func refusedRow(req WriteRequest, fields map[string][]string) RowResult {
	if len(fields) == 0 {
		return rowFailure(req, "item", msgRefused)
	}
	out := make(map[string][]string, len(fields))
	for f, msgs := range fields {
		if rest, ok := strings.CutPrefix(f, "items."); ok {
			if _, name, ok := strings.Cut(rest, "."); ok {
				f = name
			}
		}
		out[f] = append(out[f], msgs...)
	}
	return RowResult{RowIndex: req.FirstRowIndex, Failed: true, Errors: out}
}

// retry calls the writer until it answers or fails for good. Transient
// failures (timeouts, 502/503/504, 408/429, an open circuit breaker) wait
// and try again (wait).
func (cw *chunkWrite) retry(req WriteRequest) ([]RowResult, error) {
	for {
		results, err := cw.w.Write(cw.work, cw.tenantID, req)
		if err == nil || !isTransient(err) {
			if err == nil || !errors.Is(err, batch.ErrServerFailed) {
				// The downstream answered: the next run of failures has
				// its own bound.
				cw.failing, cw.attempt = time.Time{}, 0
			}
			return results, err
		}
		if err := cw.wait(req, err); err != nil {
			return nil, err
		}
	}
}

// wait paces the next attempt after a transient failure err, while stop
// lasts and for at most RetryFor after the first failure of the run; then
// the downstream counts as down (*unansweredError). The bound restarts
// with a worker that resumes the batch.
func (cw *chunkWrite) wait(req WriteRequest, err error) error {
	a := cw.a
	now := a.d.Now()
	if cw.failing.IsZero() {
		cw.failing, cw.attempt = now, 0
	}
	giveUpAt := cw.failing.Add(a.d.RetryFor)
	if !now.Before(giveUpAt) {
		return &unansweredError{after: a.d.RetryFor, last: err}
	}
	delay := min(a.d.Retry.Delay(cw.attempt), giveUpAt.Sub(now))
	cw.attempt++
	a.d.Metrics.retried(req.Type)
	a.d.Log.Warn("batch chunk failed, retrying", "batch_id", req.BatchID, "tenant_id", cw.tenantID,
		"first_row_index", req.FirstRowIndex, "attempt", cw.attempt, "retry_in", delay.String(), "err", err)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-cw.stop.Done():
		return cw.stop.Err()
	case <-cw.work.Done(): // the lease was lost: another worker has the batch
		return fmt.Errorf("%w: %w", batch.ErrLeaseLost, cw.work.Err())
	case <-t.C:
		return nil
	}
}
