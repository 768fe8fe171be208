package store

import "github.com/paylane/paylane/batch-svc/internal/batch"

// BatchesSQL is ListBatches' count and page statements, the page read in
// order, and their arguments but LIMIT and OFFSET.
func BatchesSQL(types []string, status batch.Status, order string) (count, page string, args []any) {
	return batchesSQL(types, status, order)
}
