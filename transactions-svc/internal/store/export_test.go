package store

import (
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// ListSQL is a list's count and page statements, the page read from the
// newest end (order DESC) or from the oldest (ASC); the plan test explains
// them.
func ListSQL(d txn.Direction, f Filter, order string) (count, page string, args []any) {
	count, fromWhere, args := listSQL(d, f)
	w := listtotal.Window{Reverse: order == "ASC"}
	return count, listPageSQL(d, fromWhere, len(args)+1, w.OrderBy(listOrder)), args
}

// BatchRowsSQL is the lookup of a chunk's recorded rows.
const BatchRowsSQL = batchRowsSQL

// LockByExternalIDsSQL is the bulk create's lookup of live items by
// external id.
func LockByExternalIDsSQL(d txn.Direction) string { return lockByExternalIDsSQL(d) }

// SetLatestMessagesSQL and SetMessageStatesSQL are RecordMessages'
// statements.
const (
	SetLatestMessagesSQL = setLatestMessagesSQL
	SetMessageStatesSQL  = setMessageStatesSQL
)
