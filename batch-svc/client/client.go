// Package client is what other services import to call batch-svc: the
// tenant dashboard reads batch headers and their row errors through the
// public routes (GET /api/v1/batches, /api/v1/batches/{batch} and
// /api/v1/batches/{batch}/errors) with the internal token of the signed-in
// user, so the API's gates (the view-any ability of the batch's type),
// validation and tenant scope apply unchanged.
//
// Calls go through libs/svcclient: a circuit breaker per tenant (after
// five consecutive failures of a tenant's calls, transport errors,
// timeouts and 5xx answers, that tenant's calls fail fast with
// ErrUnavailable for a while; a 4xx is returned as the *Error it is and
// never opens it) and a timeout per call unless ctx has an earlier
// deadline.
package client

import (
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// DefaultTimeout bounds a call.
const DefaultTimeout = 5 * time.Second

const maxBody = 4 << 20

var (
	// ErrNotFound matches a 404 resource_not_found: no such batch in the
	// tenant.
	ErrNotFound = svcclient.ErrNotFound
	// ErrUnavailable: the tenant's circuit breaker is open.
	ErrUnavailable = svcclient.ErrUnavailable
)

// Error is an error answer of batch-svc: the status and the envelope
// (Fields gives the messages per field of a 422).
type Error = svcclient.Error

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int { return svcclient.StatusOf(err) }

// Client calls batch-svc. It is safe for concurrent use; share one per
// process.
type Client struct {
	core *svcclient.Client
}

// New returns a client for the batch-svc at baseURL (for example
// http://batch-svc:8080). A nil hc uses a default client; timeouts are per
// call either way.
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: svcclient.New(svcclient.Config{Service: "batch-svc", BaseURL: baseURL, HTTP: hc,
		Timeout: DefaultTimeout, MaxBody: maxBody, Breaker: true})}
}
