// Package client is what other services import to call contacts-svc: look
// up a contact (live or soft-deleted) or a phone record, find or create a
// contact by external id, bulk-upsert a chunk of a contacts batch, and
// search contacts by name for the AI gateway. Every method takes the internal token of the tenant the
// caller acts for (the one the gateway forwarded to it).
//
// Calls go through a circuit breaker per tenant (libs/breaker, the tenant
// of the token): after five consecutive failures of a tenant's calls
// (transport errors, timeouts and 5xx answers other than 501 and 505;
// never a 4xx, which is returned as the *Error it is) that tenant's calls
// fail fast with ErrUnavailable for 10 s, then a probe goes through; other
// tenants' calls are not affected. Each call has a timeout unless ctx has
// an earlier deadline.
package client

import (
	"context"
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// Timeouts of a call.
const (
	DefaultTimeout = 5 * time.Second
	// BulkTimeout bounds a bulk upsert (up to 1000 rows in one transaction).
	BulkTimeout = 30 * time.Second
)

const maxBody = 8 << 20

// Client calls the internal routes of contacts-svc. It is safe for
// concurrent use; share one per process.
type Client struct {
	core *svcclient.Client
}

// New returns a client for the contacts-svc at baseURL (for example
// http://contacts-svc:8080). A nil hc uses a default client; timeouts are
// per call either way.
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: svcclient.New(svcclient.Config{Service: "contacts-svc", BaseURL: baseURL, HTTP: hc,
		Timeout: DefaultTimeout, MaxBody: maxBody, Breaker: true})}
}

// call sends method path with body (JSON, when not nil) and decodes a 2xx
// answer's data into out. Other answers become *Error.
func (c *Client) call(ctx context.Context, timeout time.Duration, method, path, token, idemKey string, body, out any) error {
	return c.core.Data(ctx, svcclient.Request{Method: method, Path: path, Auth: token, IdempotencyKey: idemKey,
		Body: body, Timeout: timeout}, out)
}
