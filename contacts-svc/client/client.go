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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	// BulkTimeout bounds a bulk upsert (up to 1000 rows in one transaction).
	BulkTimeout = 30 * time.Second
)

const maxBody = 8 << 20

// Client calls the internal routes of contacts-svc. It is safe for
// concurrent use; share one per process.
type Client struct {
	baseURL  string
	hc       *http.Client
	breakers *breaker.Set[answer]
}

// answer is a response read whole.
type answer struct {
	status    int
	requestID string
	body      []byte
}

// New returns a client for the contacts-svc at baseURL (for example
// http://contacts-svc:8080). A nil hc uses a default client; timeouts are
// per call either way.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{
		baseURL:  strings.TrimRight(baseURL, "/"),
		hc:       hc,
		breakers: breaker.New[answer](breaker.Settings{Name: "contacts-svc"}),
	}
}

// call sends method path with body (JSON, when not nil) and decodes a 2xx
// answer's data into out. Other answers become *Error.
func (c *Client) call(ctx context.Context, timeout time.Duration, method, path, token, idemKey string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("contacts client: encoding request: %w", err)
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
		return fmt.Errorf("contacts client: %s %s: answer is not {data}", method, path)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("contacts client: decoding %s %s: %w", method, path, err)
	}
	return nil
}

// send performs one request; err is a transport error (no answer read).
func (c *Client) send(ctx context.Context, method, path, token, idemKey string, payload []byte) (answer, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return answer{}, fmt.Errorf("contacts client: building request: %w", err)
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
		return answer{}, fmt.Errorf("contacts client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	idempotency.NoteForwarded(ctx, resp.Header)
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return answer{}, fmt.Errorf("contacts client: reading %s %s: %w", method, path, err)
	}
	return answer{status: resp.StatusCode, requestID: resp.Header.Get(reqid.Header), body: b}, nil
}
