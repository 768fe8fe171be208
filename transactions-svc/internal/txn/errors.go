package txn

import "errors"

// Errors of items.
var (
	// ErrNotFound: no such receivable, payable or transaction in the tenant
	// (also for ids that are not ULIDs).
	ErrNotFound = errors.New("txn: not found")
	// ErrContactNotFound: the contact reference names no live contact.
	ErrContactNotFound = errors.New("txn: contact not found")
)
