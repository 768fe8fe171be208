package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/libs/listtotal"
)

// LockTenantSubmissions serialises the tenant's submissions until the
// transaction ends (a transaction advisory lock on the tenant), so the
// limits' counts and the insert that follows them hold across replicas.
func (t *Tx) LockTenantSubmissions(ctx context.Context) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('batch-svc:submit'), hashtext($1))`, t.tenantID)
	if err != nil {
		return fmt.Errorf("locking the tenant's submissions: %w", err)
	}
	return nil
}

// Usage is what the tenant's limits count: batches in flight (queued or
// processing), batches submitted since the window's start, and when the
// oldest of those was submitted.
type Usage struct {
	InFlight     int
	Recent       int
	OldestRecent time.Time
}

// Usage counts the tenant's batches for the limits.
func (t *Tx) Usage(ctx context.Context, windowStart time.Time) (Usage, error) {
	var u Usage
	var oldest *time.Time
	err := t.tx.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE status IN ('queued', 'processing')),
			count(*) FILTER (WHERE created_at > $1),
			min(created_at) FILTER (WHERE created_at > $1)
		  FROM batches WHERE status IN ('queued', 'processing') OR created_at > $1`, windowStart).
		Scan(&u.InFlight, &u.Recent, &oldest)
	if err != nil {
		return Usage{}, fmt.Errorf("counting the tenant's batches: %w", err)
	}
	if oldest != nil {
		u.OldestRecent = *oldest
	}
	return u, nil
}

// InsertBatch stores a new batch, its items in chunks (one statement over
// unnest arrays, never a statement per row) and its place in the queue.
func (t *Tx) InsertBatch(ctx context.Context, h batch.Header, chunks []batch.Chunk) error {
	opts, err := json.Marshal(h.Options)
	if err != nil {
		return fmt.Errorf("encoding options: %w", err)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO batches (id, tenant_id, type, status, total_items, options, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, h.ID, t.tenantID, h.Type, h.Status, h.TotalItems, opts, h.CreatedAt)
	if err != nil {
		return fmt.Errorf("inserting batch: %w", err)
	}
	idx, first, count := make([]int32, len(chunks)), make([]int32, len(chunks)), make([]int32, len(chunks))
	items := make([]string, len(chunks))
	for i, c := range chunks {
		idx[i], first[i], count[i] = int32(c.Index), int32(c.FirstRowIndex), int32(len(c.Items))
		items[i] = joinItems(c.Items)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO batch_chunks (tenant_id, batch_id, chunk_index, first_row_index, item_count, items)
		SELECT $1, $2, i, f, n, it FROM unnest($3::int[], $4::int[], $5::int[], $6::text[]) AS u(i, f, n, it)`,
		t.tenantID, h.ID, idx, first, count, items)
	if err != nil {
		return fmt.Errorf("inserting batch items: %w", err)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO batch_queue (batch_id, tenant_id, lease_until) VALUES ($1, $2, $3)`,
		h.ID, t.tenantID, h.CreatedAt)
	if err != nil {
		return fmt.Errorf("queueing batch: %w", err)
	}
	return nil
}

// joinItems renders raw items as one JSON array.
func joinItems(items []json.RawMessage) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.String()
}

const headerColumns = `id, tenant_id, type, status, total_items, processed_items, succeeded_items, failed_items,
	options, failure_reason, started_at, completed_at, created_at, updated_at`

func scanHeader(row pgx.Row) (batch.Header, error) {
	var h batch.Header
	var opts []byte
	err := row.Scan(&h.ID, &h.TenantID, &h.Type, &h.Status, &h.TotalItems, &h.ProcessedItems, &h.SucceededItems,
		&h.FailedItems, &opts, &h.FailureReason, &h.StartedAt, &h.CompletedAt, &h.CreatedAt, &h.UpdatedAt)
	if err != nil {
		return batch.Header{}, err
	}
	if err := json.Unmarshal(opts, &h.Options); err != nil {
		return batch.Header{}, fmt.Errorf("decoding options of batch %s: %w", h.ID, err)
	}
	return h, nil
}

// Batch returns the tenant's batch id; batch.ErrNotFound when it has none.
func (t *Tx) Batch(ctx context.Context, id string) (batch.Header, error) {
	h, err := scanHeader(t.tx.QueryRow(ctx, `SELECT `+headerColumns+` FROM batches WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return batch.Header{}, batch.ErrNotFound
	}
	if err != nil {
		return batch.Header{}, fmt.Errorf("reading batch %s: %w", id, err)
	}
	return h, nil
}

// ListFilter selects batches: of these types, in this state when set.
type ListFilter struct {
	Types  []batch.Type
	Status batch.Status
	Limit  int
	Offset int
}

// ListBatches returns a page of the tenant's batches, newest first, and
// how many match in all (listtotal: exact up to the store's ListCap,
// estimated above it). A page in the older half of an exact total is read
// from the oldest end (listtotal.Window).
func (t *Tx) ListBatches(ctx context.Context, f ListFilter) ([]batch.Header, listtotal.Total, error) {
	types := make([]string, len(f.Types))
	for i, ty := range f.Types {
		types[i] = string(ty)
	}
	count, sel, args := batchesSQL(types, f.Status)
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting batches: %w", err)
	}
	w := total.Window(f.Limit, f.Offset)
	rows, err := t.tx.Query(ctx, w.Page(sel, batchesOrder, len(args)+1), w.Args(args)...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing batches: %w", err)
	}
	defer rows.Close()
	var out []batch.Header
	for rows.Next() {
		h, err := scanHeader(rows)
		if err != nil {
			return nil, listtotal.Total{}, fmt.Errorf("reading batch: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing batches: %w", err)
	}
	return out, total, nil
}

// batchesSQL returns the count statement (a row per matching batch, for
// listtotal) and the selection of ListBatches: of the types, in the status
// when it is not empty, and their arguments. The status condition is in the
// text only when it filters, so each case is a statement of its own with
// its own generic plan in pgx's statement cache, as in the other lists
// (listtotal.Where). Its page is the selection read by a listtotal.Window
// in batchesOrder (from the newest through batches_list_idx, or from the
// oldest by a backward scan of it).
func batchesSQL(types []string, status batch.Status) (count, sel string, args []any) {
	var where listtotal.Where
	where.And("type = ANY($%d)", types)
	if status != "" {
		where.And("status = $%d", string(status))
	}
	return `SELECT 1 FROM batches` + where.SQL(), `SELECT ` + headerColumns + ` FROM batches` + where.SQL(), where.Args()
}

// batchesOrder is the order of a list of batches: newest first.
const batchesOrder = "created_at DESC, id DESC"

// RowErrors returns a page of the batch's row errors in ascending
// row_index order, and how many it has in all (listtotal: a batch of
// 10,000 rows may have more errors than the cap). A page in the later half
// of an exact total is read from the end (listtotal.Window).
func (t *Tx) RowErrors(ctx context.Context, batchID string, limit, offset int) ([]batch.RowError, listtotal.Total, error) {
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, `SELECT 1 FROM batch_errors WHERE batch_id = $1`, batchID)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting row errors: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, rowErrorsPageSQL(w), w.Args([]any{batchID})...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing row errors: %w", err)
	}
	defer rows.Close()
	var out []batch.RowError
	for rows.Next() {
		var (
			e   batch.RowError
			seq int64
		)
		if err := rows.Scan(&e.RowIndex, &seq, &e.ExternalID, &e.Field, &e.Message); err != nil {
			return nil, listtotal.Total{}, fmt.Errorf("reading row error: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing row errors: %w", err)
	}
	return out, total, nil
}

// rowErrorsPageSQL is the page statement of RowErrors: a batch's ($1)
// row errors read by w (in the list's order, row_index then seq, or from
// the end by a backward scan of the primary key), LIMIT $2 and OFFSET $3,
// in the list's order either way, seq with them.
func rowErrorsPageSQL(w listtotal.Window) string {
	return w.Page(`SELECT row_index, seq, external_id, field, message FROM batch_errors WHERE batch_id = $1`, "row_index, seq", 2)
}
