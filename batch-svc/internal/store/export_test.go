package store

import (
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/libs/listtotal"
)

// BatchesSQL is ListBatches' count and page statements, the page read
// from the newest end (order DESC) or the oldest (ASC), and their
// arguments but LIMIT and OFFSET.
func BatchesSQL(types []string, status batch.Status, order string) (count, page string, args []any) {
	count, sel, args := batchesSQL(types, status)
	return count, listtotal.Window{Reverse: order == "ASC"}.Page(sel, batchesOrder, len(args)+1), args
}
