package txn

import (
	"errors"

	"github.com/paylane/paylane/libs/apierr"
)

// Errors of items.
var (
	// ErrNotFound: no such receivable, payable or transaction in the tenant
	// (also for ids that are not ULIDs).
	ErrNotFound = apierr.NewSentinel("txn: not found", apierr.NotFound())
	// ErrContactNotFound: the contact reference names no live contact.
	ErrContactNotFound = errors.New("txn: contact not found")
)
