package client

import "github.com/paylane/paylane/libs/svcclient"

var (
	// ErrNotFound matches a 404 resource_not_found: no such contact or
	// phone record in the tenant.
	ErrNotFound = svcclient.ErrNotFound
	// ErrUnavailable: the tenant's circuit breaker is open; contacts-svc
	// failed the tenant's calls repeatedly and is not called for the
	// tenant for now.
	ErrUnavailable = svcclient.ErrUnavailable
)

// Error is an error answer of contacts-svc: the status and the envelope
// (Fields gives the messages per field of a 422).
type Error = svcclient.Error

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int { return svcclient.StatusOf(err) }
