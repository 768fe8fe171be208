package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// LockBatch returns the batch, locked until the transaction ends.
func (t *Tx) LockBatch(ctx context.Context, id string) (batch.Header, error) {
	h, err := scanHeader(t.tx.QueryRow(ctx, `SELECT `+headerColumns+` FROM batches WHERE id = $1 FOR UPDATE`, id))
	if err != nil {
		return batch.Header{}, fmt.Errorf("locking batch %s: %w", id, err)
	}
	return h, nil
}

// Start moves a queued batch to processing (started_at now); a batch
// already processing (resumed by another worker) keeps its started_at.
func (t *Tx) Start(ctx context.Context, id string, now time.Time) error {
	_, err := t.tx.Exec(ctx, `UPDATE batches SET status = 'processing', started_at = $2, updated_at = $2
		 WHERE id = $1 AND status = 'queued'`, id, now)
	if err != nil {
		return fmt.Errorf("starting batch %s: %w", id, err)
	}
	return nil
}

// PendingChunks returns the indexes of the batch's chunks not yet
// recorded, in row order.
func (t *Tx) PendingChunks(ctx context.Context, id string) ([]int, error) {
	rows, err := t.tx.Query(ctx, `SELECT chunk_index FROM batch_chunks WHERE batch_id = $1 AND NOT done ORDER BY chunk_index`, id)
	if err != nil {
		return nil, fmt.Errorf("listing pending chunks: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, fmt.Errorf("reading chunk index: %w", err)
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// Chunk returns one chunk of the batch with its items.
func (t *Tx) Chunk(ctx context.Context, id string, index int) (batch.Chunk, error) {
	c := batch.Chunk{Index: index}
	var items string
	err := t.tx.QueryRow(ctx, `SELECT first_row_index, items FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`,
		id, index).Scan(&c.FirstRowIndex, &items)
	if err != nil {
		return batch.Chunk{}, fmt.Errorf("reading chunk %d of batch %s: %w", index, id, err)
	}
	if err := json.Unmarshal([]byte(items), &c.Items); err != nil {
		return batch.Chunk{}, fmt.Errorf("decoding chunk %d of batch %s: %w", index, id, err)
	}
	return c, nil
}

// ChunkOutcome is what a chunk's rows came to.
type ChunkOutcome struct {
	Succeeded, Failed int
	Errors            []batch.RowError
}

// RecordChunk marks the chunk done, stores its row errors and advances the
// batch's counters, once: a chunk already recorded (by a worker that lost
// its lease after recording it) changes nothing, and RecordChunk reports
// false.
func (t *Tx) RecordChunk(ctx context.Context, id string, index int, out ChunkOutcome, now time.Time) (bool, error) {
	var n int
	err := t.tx.QueryRow(ctx, `UPDATE batch_chunks SET done = true
		 WHERE batch_id = $1 AND chunk_index = $2 AND NOT done RETURNING item_count`, id, index).Scan(&n)
	if err != nil {
		if isNoRows(err) {
			return false, nil
		}
		return false, fmt.Errorf("marking chunk %d done: %w", index, err)
	}
	if err := t.insertErrors(ctx, id, out.Errors); err != nil {
		return false, err
	}
	_, err = t.tx.Exec(ctx, `UPDATE batches SET processed_items = processed_items + $2,
		succeeded_items = succeeded_items + $3, failed_items = failed_items + $4, updated_at = $5 WHERE id = $1`,
		id, n, out.Succeeded, out.Failed, now)
	if err != nil {
		return false, fmt.Errorf("advancing counters of batch %s: %w", id, err)
	}
	return true, nil
}

// insertErrors stores row errors in one statement; seq numbers the
// messages of a row in the order given.
func (t *Tx) insertErrors(ctx context.Context, id string, errs []batch.RowError) error {
	if len(errs) == 0 {
		return nil
	}
	rowIdx, seq := make([]int32, len(errs)), make([]int32, len(errs))
	ext, field, msg := make([]string, len(errs)), make([]string, len(errs)), make([]string, len(errs))
	perRow := map[int]int32{}
	for i, e := range errs {
		rowIdx[i], ext[i], field[i], msg[i] = int32(e.RowIndex), e.ExternalID, e.Field, e.Message
		seq[i] = perRow[e.RowIndex]
		perRow[e.RowIndex]++
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO batch_errors (tenant_id, batch_id, row_index, seq, external_id, field, message)
		SELECT $1, $2, r, s, x, f, m FROM unnest($3::int[], $4::int[], $5::text[], $6::text[], $7::text[]) AS u(r, s, x, f, m)
		ON CONFLICT DO NOTHING`, t.tenantID, id, rowIdx, seq, ext, field, msg)
	if err != nil {
		return fmt.Errorf("inserting row errors: %w", err)
	}
	return nil
}

// Finish ends the batch in status (a final one), with reason when failed,
// and returns the final header.
func (t *Tx) Finish(ctx context.Context, id string, status batch.Status, reason *string, now time.Time) (batch.Header, error) {
	h, err := scanHeader(t.tx.QueryRow(ctx, `UPDATE batches SET status = $2, failure_reason = $3,
		completed_at = $4, updated_at = $4, started_at = coalesce(started_at, $4)
		 WHERE id = $1 RETURNING `+headerColumns, id, status, reason, now))
	if err != nil {
		return batch.Header{}, fmt.Errorf("finishing batch %s: %w", id, err)
	}
	return h, nil
}

// DropChunks deletes the batch's chunks with their items (the submitted
// names, phones, emails and custom fields): they exist to be processed, and
// a finished batch keeps only its header and row errors. A worker that
// lost its lease finds no chunk left to record.
func (t *Tx) DropChunks(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM batch_chunks WHERE batch_id = $1`, id); err != nil {
		return fmt.Errorf("deleting the chunks of batch %s: %w", id, err)
	}
	return nil
}
