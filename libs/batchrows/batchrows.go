// Package batchrows reads the outcomes a service recorded for rows of a
// batch chunk (the (batch_id, row_index) records that let batch-svc resend a
// chunk without anything being written twice).
package batchrows

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Querier is the part of a pgx transaction Read uses.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Read returns the recorded outcomes of the rows indexes, by row index. sql
// selects a batch's recorded rows with the tenant as $1, the batch as $2 and
// row_index BETWEEN $3 AND $4, so the primary key is read by the chunk's
// range (a row_index = ANY($3) is a filter over every row the batch has
// recorded: docs/benchmarks.md finding 8); scan reads one row and returns
// its row index. Rows of the range that indexes does not name are left out.
func Read[T any](ctx context.Context, q Querier, sql, tenantID, batchID string, indexes []int,
	scan func(pgx.Rows) (int, T, error)) (map[int]T, error) {
	out := map[int]T{}
	if len(indexes) == 0 {
		return out, nil
	}
	want := make(map[int]bool, len(indexes))
	lo, hi := indexes[0], indexes[0]
	for _, i := range indexes {
		want[i], lo, hi = true, min(lo, i), max(hi, i)
	}
	rows, err := q.Query(ctx, sql, tenantID, batchID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("reading batch rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		i, r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("reading batch rows: %w", err)
		}
		if want[i] {
			out[i] = r
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading batch rows: %w", err)
	}
	return out, nil
}
