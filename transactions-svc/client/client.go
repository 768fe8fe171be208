// Package client is what other services import to call transactions-svc:
// the AI gateway's prepare (a draft, nothing sent), confirm (send or
// schedule) and status, and batch-svc's bulk create and campaign-steps
// check. Every method takes the internal token of the tenant the caller
// acts for (the one the gateway forwarded to it, or a service token minted
// for the tenant); transactions-svc checks that token's create or view
// ability for the direction.
//
// Calls go through a circuit breaker per tenant (libs/breaker, the tenant
// of the token): after five consecutive failures of a tenant's calls
// (transport errors, timeouts and 5xx answers other than 501 and 505;
// never a 4xx, which is returned as the *Error it is) that tenant's calls
// fail fast with ErrUnavailable for 10 s; other tenants' calls are not
// affected. Each call has a timeout unless ctx has an earlier deadline.
package client

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// Timeouts of a call.
const (
	DefaultTimeout = 5 * time.Second
	// BulkTimeout bounds a bulk create (up to 500 rows in one transaction,
	// with a call to contacts-svc for their contacts).
	BulkTimeout = 30 * time.Second
)

const maxBody = 1 << 20

var (
	// ErrNotFound matches a 404 resource_not_found: no such transaction
	// (or notification) in the tenant.
	ErrNotFound = svcclient.ErrNotFound
	// ErrUnavailable: the tenant's circuit breaker is open.
	ErrUnavailable = svcclient.ErrUnavailable
)

// Error is an error answer of transactions-svc: the status and the
// envelope (Fields gives the messages per field of a 422).
type Error = svcclient.Error

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int { return svcclient.StatusOf(err) }

// Client calls the internal routes of transactions-svc. Share one per process.
type Client struct {
	core *svcclient.Client
}

// New returns a client for transactions-svc at baseURL (for example
// http://transactions-svc:8080). A nil hc uses a default client.
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: svcclient.New(svcclient.Config{Service: "transactions-svc", BaseURL: baseURL, HTTP: hc,
		Timeout: DefaultTimeout, MaxBody: maxBody, Breaker: true})}
}

// Prepare creates a draft receivable or payable (in.Direction) and returns
// it with its preview. A refused draft is an *Error (422 with Fields).
func (c *Client) Prepare(ctx context.Context, token string, in DraftInput, idempotencyKey string) (*Draft, error) {
	var out Draft
	return &out, c.call(ctx, DefaultTimeout, http.MethodPost, "/internal/v1/drafts", token, idempotencyKey, in, &out)
}

// Confirm sends or schedules the draft whose transaction is transactionID;
// sendAt, when not nil, replaces its send_at. A non-draft is an *Error with
// Code invalid_transition.
func (c *Client) Confirm(ctx context.Context, token, transactionID string, sendAt *time.Time, idempotencyKey string) (*Confirmed, error) {
	body := map[string]any{}
	if sendAt != nil {
		body["send_at"] = sendAt.UTC().Format(time.RFC3339Nano)
	}
	var out Confirmed
	return &out, c.call(ctx, DefaultTimeout, http.MethodPost, "/internal/v1/transactions/"+url.PathEscape(transactionID)+"/confirm", token, idempotencyKey, body, &out)
}

// Status returns the status of the transaction a reference names (its id,
// or its receivable's or payable's id).
func (c *Client) Status(ctx context.Context, token, reference string) (*Status, error) {
	var out Status
	return &out, c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/transactions/"+url.PathEscape(reference)+"/status", token, "", nil, &out)
}

// call sends method path with body (JSON, when not nil) within timeout and
// decodes a 2xx answer's data into out. Other answers become *Error.
func (c *Client) call(ctx context.Context, timeout time.Duration, method, path, token, idemKey string, body, out any) error {
	return c.core.Data(ctx, svcclient.Request{Method: method, Path: path, Auth: token, IdempotencyKey: idemKey,
		Body: body, Timeout: timeout}, out)
}
