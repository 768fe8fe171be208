package store

// Statements of this package, for the plan tests.

// ConsentsSQL is ListConsents' count and page statements, the page read
// in order, and their arguments but LIMIT and OFFSET.
func ConsentsSQL(f ConsentFilter, order string) (count, page string, args []any) {
	return consentsSQL(f, order)
}

// MessagesSQL is ListMessages' count and page statements, the page read in
// order, and their arguments but LIMIT and OFFSET.
func MessagesSQL(to, order string) (count, page string, args []any) {
	return messagesSQL(to, order)
}
