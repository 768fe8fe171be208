package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/apierr"
)

// ErrBulkConflict: a concurrent write took a phone or external id of the
// chunk between its checks and its writes. Nothing was written; retrying the
// chunk decides the rows again.
var ErrBulkConflict = apierr.NewSentinel("app: bulk upsert raced with another write",
	apierr.Unavailable("Another write touched these contacts; retry the request.", 1))

// MaxBulkRows is the most rows one bulk-upsert call takes; batch-svc sends a
// batch in chunks of at most this many.
const MaxBulkRows = 1000

// ErrBulkTimedOut: a statement of the chunk ran past BulkStatementTimeout
// (a slow statement, or a wait for the batch's lock held by an earlier
// attempt that is still running) and Postgres cancelled it. Nothing was
// written; the chunk may be retried.
var ErrBulkTimedOut = apierr.NewSentinel("app: bulk upsert statement timed out",
	apierr.Unavailable("The chunk took too long and was not written; retry the request.", 1))

// BulkStatementTimeout bounds each statement of a bulk upsert
// (statement_timeout), waits for the batch's lock included: 5 s below the
// callers' timeout for the call (client.BulkTimeout, 30 s), so a statement
// that runs away is cancelled and its transaction rolled back, releasing
// the batch's lock, before the caller gives up and retries, instead of
// running on after the call ended and holding the lock its retries queue
// behind.
const BulkStatementTimeout = 25 * time.Second

// BulkRow is one item of a batch: its 0-based index in the batch and the
// fields of a single create. Invalid carries the problems found while
// decoding the item (an unknown field, a wrong type); such a row fails with
// them.
type BulkRow struct {
	Index   int
	Input   contact.Input
	Invalid map[string][]string
}

// BulkRequest is a chunk of a contacts batch.
type BulkRequest struct {
	BatchID     string
	OnDuplicate contact.OnDuplicate
	// EmitEvents writes contact.created and contact.updated for every row
	// written (a batch with suppress_webhooks false); by default a batch
	// emits only its summary event, which batch-svc owns.
	EmitEvents bool
	Rows       []BulkRow
}

// BulkUpsert writes a chunk of a batch in one transaction with a handful of
// set-based statements (unnest), never a statement per row. Each row is
// validated exactly like CreateContact; a row whose external id names a live
// contact, or an earlier row of the chunk, follows OnDuplicate (update
// replaces the mutable fields as a PUT does). Every outcome is recorded
// under (BatchID, row index): rows already recorded are answered from the
// record and not written again, so a resumed batch never writes twice. The
// results follow the order of req.Rows.
func (a *App) BulkUpsert(ctx context.Context, scope Scope, req BulkRequest) ([]contact.RowResult, error) {
	if err := validBulk(req); err != nil {
		return nil, err
	}
	indexes := make([]int, len(req.Rows))
	for i, r := range req.Rows {
		indexes[i] = r.Index
	}
	var results []contact.RowResult
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		if err := tx.BoundStatements(ctx, a.bulkStatementTimeout); err != nil {
			return err
		}
		if err := tx.LockBatch(ctx, req.BatchID); err != nil {
			return err
		}
		recorded, err := tx.BatchRows(ctx, req.BatchID, indexes)
		if err != nil {
			return err
		}
		fresh, err := a.upsertRows(ctx, tx, scope, req, recorded)
		if err != nil {
			return err
		}
		if err := tx.RecordBatchRows(ctx, req.BatchID, fresh); err != nil {
			return err
		}
		results = merge(req.Rows, recorded, fresh)
		return nil
	})
	if errors.Is(err, store.ErrStatementTimedOut) {
		return nil, fmt.Errorf("%w: %w", ErrBulkTimedOut, err)
	}
	return results, err
}

// validBulk checks the envelope of a chunk.
func validBulk(req BulkRequest) error {
	problems := map[string][]string{}
	if req.BatchID == "" || len(req.BatchID) > 64 {
		problems["batch_id"] = []string{"The batch id field is required (at most 64 characters)."}
	}
	if !req.OnDuplicate.Valid() {
		problems["on_duplicate"] = []string{"The selected on duplicate is invalid (update, skip or fail)."}
	}
	if len(req.Rows) == 0 || len(req.Rows) > MaxBulkRows {
		problems["items"] = []string{fmt.Sprintf("The items field must have between 1 and %d items.", MaxBulkRows)}
	}
	seen := make(map[int]bool, len(req.Rows))
	for _, r := range req.Rows {
		if r.Index < 0 || seen[r.Index] {
			problems["first_row_index"] = []string{"The row indexes must be distinct and not negative."}
			break
		}
		seen[r.Index] = true
	}
	if len(problems) > 0 {
		return &contact.ValidationError{Fields: problems}
	}
	return nil
}

// upsertRows decides and writes the rows not recorded yet, returning their
// outcomes.
func (a *App) upsertRows(ctx context.Context, tx *store.Tx, scope Scope, req BulkRequest,
	recorded map[int]contact.RowResult) ([]contact.RowResult, error) {
	r, err := rules(ctx, tx, scope)
	if err != nil {
		return nil, err
	}
	rows := make([]validRow, 0, len(req.Rows))
	failed := []contact.RowResult{}
	for _, row := range req.Rows {
		if _, done := recorded[row.Index]; done {
			continue
		}
		f, err := validateRow(r, row)
		if err != nil {
			failed = append(failed, contact.RowResult{RowIndex: row.Index, Action: contact.RowFailed, Errors: err.Fields})
			continue
		}
		rows = append(rows, validRow{index: row.Index, fields: f})
	}
	p, err := a.newPlan(ctx, tx, req.OnDuplicate, rows)
	if err != nil {
		return nil, err
	}
	results := p.decide(rows)
	if err := p.write(ctx, tx, req.EmitEvents); err != nil {
		return nil, err
	}
	return append(results, failed...), nil
}

// validateRow validates a row like a single create.
func validateRow(r contact.Rules, row BulkRow) (contact.Fields, *contact.ValidationError) {
	if len(row.Invalid) > 0 {
		return contact.Fields{}, &contact.ValidationError{Fields: row.Invalid}
	}
	f, err := r.Validate(row.Input)
	var ve *contact.ValidationError
	if errors.As(err, &ve) {
		return contact.Fields{}, ve
	}
	return f, nil
}

// merge returns the outcomes in the order of rows.
func merge(rows []BulkRow, recorded map[int]contact.RowResult, fresh []contact.RowResult) []contact.RowResult {
	byIndex := make(map[int]contact.RowResult, len(fresh))
	for _, r := range fresh {
		byIndex[r.RowIndex] = r
	}
	out := make([]contact.RowResult, 0, len(rows))
	for _, row := range rows {
		if r, ok := recorded[row.Index]; ok {
			out = append(out, r)
			continue
		}
		out = append(out, byIndex[row.Index])
	}
	return out
}
