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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
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
	// ErrNotFound: no such transaction in the tenant (404 resource_not_found).
	ErrNotFound = errors.New("transactions client: not found")
	// ErrUnavailable: the tenant's circuit breaker is open.
	ErrUnavailable = errors.New("transactions client: transactions-svc unavailable")
)

// Client calls the internal routes of transactions-svc. Share one per process.
type Client struct {
	baseURL  string
	hc       *http.Client
	breakers *breaker.Set[answer]
}

type answer struct {
	status int
	body   []byte
}

// New returns a client for transactions-svc at baseURL (for example
// http://transactions-svc:8080). A nil hc uses a default client.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{
		baseURL:  strings.TrimRight(baseURL, "/"),
		hc:       hc,
		breakers: breaker.New[answer](breaker.Settings{Name: "transactions-svc"}),
	}
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
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("transactions client: encoding request: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, _, err := c.breakers.Do(breaker.TenantOf(token), func() (answer, int, error) {
		a, err := c.send(ctx, method, path, token, idemKey, payload)
		return a, a.status, err
	})
	if errors.Is(err, breaker.ErrOpen) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err != nil {
		return err
	}
	if a.status < 200 || a.status > 299 {
		return decodeError(a)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil || env.Data == nil {
		return fmt.Errorf("transactions client: %s %s: answer is not {data}", method, path)
	}
	return json.Unmarshal(env.Data, out)
}

func (c *Client) send(ctx context.Context, method, path, token, idemKey string, payload []byte) (answer, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return answer{}, fmt.Errorf("transactions client: building request: %w", err)
	}
	obs.Inject(ctx, req.Header)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := reqid.From(ctx); id != "" {
		req.Header.Set(reqid.Header, id)
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("transactions client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	idempotency.NoteForwarded(ctx, resp.Header)
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return answer{}, fmt.Errorf("transactions client: reading %s %s: %w", method, path, err)
	}
	return answer{status: resp.StatusCode, body: b}, nil
}
