package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/batchrows"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// LockBatch serialises bulk creates of one batch id in the tenant until the
// transaction ends, so two workers resuming the same batch cannot both write
// a row: the second waits and then finds the first one's recorded rows.
func (t *Tx) LockBatch(ctx context.Context, batchID string) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/transaction-batch/' || $2, 0))`,
		t.tenantID, batchID)
	if err != nil {
		return fmt.Errorf("locking batch: %w", err)
	}
	return nil
}

// batchRowsSQL reads a batch's recorded rows in the range of row indexes
// $3..$4, a range of transaction_batch_rows_pkey. The former "row_index =
// ANY($3)" was a filter, not an index condition: every chunk read all the
// rows its batch had recorded so far and compared each with the whole
// array, a cost that grew with every chunk of a large batch
// (docs/benchmarks.md finding 8; TestBatchRowsReadTheRangeOfTheChunk).
const batchRowsSQL = `SELECT row_index, coalesce(item_id, ''), action, errors FROM transaction_batch_rows
	WHERE tenant_id = $1 AND batch_id = $2 AND row_index BETWEEN $3 AND $4`

// BatchRows returns the recorded outcomes of the given rows of a batch, by
// row index.
func (t *Tx) BatchRows(ctx context.Context, batchID string, indexes []int) (map[int]txn.RowResult, error) {
	return batchrows.Read(ctx, t.tx, batchRowsSQL, t.tenantID, batchID, indexes, func(rows pgx.Rows) (int, txn.RowResult, error) {
		var r txn.RowResult
		var action string
		err := rows.Scan(&r.RowIndex, &r.ID, &action, &r.Errors)
		r.Action = txn.RowAction(action)
		return r.RowIndex, r, err
	})
}

// RecordBatchRows stores the outcomes of rows of a batch in one statement.
func (t *Tx) RecordBatchRows(ctx context.Context, batchID string, d txn.Direction, results []txn.RowResult) error {
	if len(results) == 0 {
		return nil
	}
	n := len(results)
	idx, itemIDs, actions, errs := make([]int32, n), make([]*string, n), make([]string, n), make([]*string, n)
	for i, r := range results {
		idx[i], actions[i] = int32(r.RowIndex), string(r.Action)
		if r.ID != "" {
			itemIDs[i] = &r.ID
		}
		if len(r.Errors) > 0 {
			b, err := json.Marshal(r.Errors)
			if err != nil {
				return fmt.Errorf("encoding row errors: %w", err)
			}
			s := string(b)
			errs[i] = &s
		}
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO transaction_batch_rows (tenant_id, batch_id, row_index, direction, item_id, action, errors)
		SELECT $1, $2, u.row_index, $3, u.item_id, u.action, u.errors::jsonb
		  FROM unnest($4::int[], $5::text[], $6::text[], $7::text[]) AS u(row_index, item_id, action, errors)`,
		t.tenantID, batchID, d, idx, itemIDs, actions, errs)
	if err != nil {
		return fmt.Errorf("recording batch rows: %w", err)
	}
	return nil
}

// lockByExternalIDsSQL reads the live items of direction d with the
// external ids $1. It runs with pgx.QueryExecModeExec (an unnamed
// statement), so Postgres plans it for the ids it is given every time: the
// ids are then a constant array, which Postgres searches through a hash
// table, where the generic plan pgx's statement cache leads to after five
// executions searches the parameter array linearly for every item it
// reads. Without a unique index to pin the estimate, both plans may read
// the tenant's items through the created_at index (statistics older than
// the tenant's items); compared linearly that cost 500 × items per
// 500-row chunk, 75-140 ms from the sixth chunk of a new tenant's batch on
// and growing with the tenant, against 1-7 ms planned for the ids
// (docs/benchmarks.md finding 8; TestLockByExternalIDsIsPlannedForItsIDs).
func lockByExternalIDsSQL(d txn.Direction) string {
	return selectItems(d) + ` WHERE c.external_id = ANY($1) AND c.deleted_at IS NULL
		ORDER BY c.created_at, c.id FOR UPDATE OF c, t`
}

// LockByExternalIDs returns the live items of direction d with the given
// external ids, locked FOR UPDATE (child and parent) like LockItem. Where
// several live items share an external id, the newest one is returned.
func (t *Tx) LockByExternalIDs(ctx context.Context, d txn.Direction, externalIDs []string) (map[string]txn.Item, error) {
	out := map[string]txn.Item{}
	if len(externalIDs) == 0 {
		return out, nil
	}
	rows, err := t.tx.Query(ctx, lockByExternalIDsSQL(d), pgx.QueryExecModeExec, externalIDs)
	if err != nil {
		return nil, fmt.Errorf("reading %s by external id: %w", d, err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := scanItem(rows, d)
		if err != nil {
			return nil, fmt.Errorf("reading %s by external id: %w", d, err)
		}
		out[*it.ExternalID] = it // ordered oldest first: the newest stays
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s by external id: %w", d, err)
	}
	return out, nil
}

// PublishMany writes events to the outbox in one statement; the relay sends
// them once the transaction commits.
func (t *Tx) PublishMany(ctx context.Context, envs []events.Envelope) error {
	if err := outbox.AddMany(ctx, t.tx, envs); err != nil {
		return fmt.Errorf("publishing: %w", err)
	}
	return nil
}

// Wake is a row of the scheduler's queue to write: work of Kind for an
// item at DueAt.
type Wake struct {
	Item  txn.Item
	Kind  Kind
	DueAt time.Time
}

// ScheduleMany queues work like Schedule, in one statement; each (item,
// kind) may appear once.
func (t *Tx) ScheduleMany(ctx context.Context, wakes []Wake) error {
	if len(wakes) == 0 {
		return nil
	}
	n := len(wakes)
	itemIDs, kinds, dirs, due := make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
	for i, w := range wakes {
		itemIDs[i], kinds[i], dirs[i], due[i] = w.Item.ID, string(w.Kind), string(w.Item.Direction), w.DueAt
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO due_work (item_id, kind, tenant_id, direction, due_at)
		SELECT u.item_id, u.kind, $1, u.direction, u.due_at
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(item_id, kind, direction, due_at)
		ON CONFLICT (item_id, kind) DO UPDATE SET due_at = EXCLUDED.due_at, attempts = 0`,
		t.tenantID, itemIDs, kinds, dirs, due)
	if err != nil {
		return fmt.Errorf("scheduling: %w", err)
	}
	return nil
}
