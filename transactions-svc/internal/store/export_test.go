package store

import "github.com/paylane/paylane/transactions-svc/internal/txn"

// ListSQL is a list's count and page statements (the plan test explains
// them).
func ListSQL(d txn.Direction, f Filter) (count, page string, args []any) { return listSQL(d, f) }
