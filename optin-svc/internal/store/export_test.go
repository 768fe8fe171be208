package store

import "github.com/paylane/paylane/libs/listtotal"

// Statements of this package, for the plan tests.

// ConsentsSQL is ListConsents' count and page statements, the page read
// from the newest end (order DESC) or the oldest (ASC), and their
// arguments but LIMIT and OFFSET.
func ConsentsSQL(f ConsentFilter, order string) (count, page string, args []any) {
	count, sel, args := consentsSQL(f)
	return count, listtotal.Window{Reverse: order == "ASC"}.Page(sel, consentsOrder, len(args)+1), args
}

// MessagesSQL is ListMessages' count and page statements, the page read
// from the newest end (order DESC) or the oldest (ASC), and their
// arguments but LIMIT and OFFSET.
func MessagesSQL(to, order string) (count, page string, args []any) {
	count, sel, args := messagesSQL(to)
	return count, listtotal.Window{Reverse: order == "ASC"}.Page(sel, messagesOrder, len(args)+1), args
}
