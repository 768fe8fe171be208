// Package svcclient is the one core of the client packages through which
// services call each other (contacts-svc/client, identity-svc/client,
// optin-svc/client, transactions-svc/client): it builds the request (the
// caller's internal token or service credential, the request id of ctx,
// an Idempotency-Key to forward, a JSON body), bounds each call by a
// timeout, sends it through a circuit breaker per tenant (libs/breaker)
// when the client asks for one, and turns an answer other than 2xx into an
// *Error carrying the status and the envelope's code. A client package is
// then a thin typed wrapper: its routes, its types, its sentinels.
package svcclient

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

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

// Defaults of Config.
const (
	DefaultTimeout = 5 * time.Second
	DefaultMaxBody = 4 << 20
)

// Config describes a client of one service.
type Config struct {
	// Service names the callee ("contacts-svc") in errors and its breakers.
	Service string
	// BaseURL is the callee's scheme and host (http://contacts-svc:8080).
	BaseURL string
	// HTTP sends the requests; nil uses a client without its own timeout
	// (each call has Timeout).
	HTTP *http.Client
	// Timeout bounds a call unless its Request says otherwise or ctx has an
	// earlier deadline; 0 means DefaultTimeout, a negative value none.
	Timeout time.Duration
	// MaxBody bounds how much of an answer is read; 0 means DefaultMaxBody.
	MaxBody int64
	// Breaker sends every call through the breaker of its tenant (the
	// tenant_id of the request's bearer token, or Request.Tenant).
	Breaker bool
}

// Client calls one service. It is safe for concurrent use; share one per
// process and callee.
type Client struct {
	cfg      Config
	hc       *http.Client
	breakers *breaker.Set[answer]
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	c := &Client{cfg: cfg, hc: cfg.HTTP}
	c.cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.cfg.Timeout == 0 {
		c.cfg.Timeout = DefaultTimeout
	}
	if c.cfg.MaxBody <= 0 {
		c.cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Breaker {
		c.breakers = breaker.New[answer](breaker.Settings{Name: cfg.Service})
	}
	return c
}

// BaseURL returns the callee's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// Request is one call.
type Request struct {
	Method string
	// Path is the route with its query, for example "/internal/v1/contacts/ID".
	Path string
	// Auth is sent as "Authorization: Bearer <Auth>" (a value that already
	// starts with "Bearer " is sent as it is); empty sends none.
	Auth string
	// Tenant keys the breaker; empty means the tenant of Auth.
	Tenant string
	// IdempotencyKey, when not empty, is forwarded as Idempotency-Key.
	IdempotencyKey string
	// Body, when not nil, is sent as JSON.
	Body any
	// Timeout overrides the client's for this call (a negative value: none).
	Timeout time.Duration
}

// Data performs r and decodes the data member of a 2xx answer ({"data":
// ...}) into out. Any other answer is an *Error; an open breaker is
// ErrUnavailable; a transport error or timeout is returned wrapped.
func (c *Client) Data(ctx context.Context, r Request, out any) error {
	a, err := c.exchange(ctx, r)
	if err != nil {
		return err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil || env.Data == nil {
		return fmt.Errorf("%s: %s %s: answer is not {data}", c.cfg.Service, r.Method, pathOnly(r.Path))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("%s: decoding %s %s: %w", c.cfg.Service, r.Method, pathOnly(r.Path), err)
	}
	return nil
}

// JSON performs r and decodes a 2xx answer's whole body into out (skipped
// when out is nil or the body empty). Other answers are as for Data.
func (c *Client) JSON(ctx context.Context, r Request, out any) error {
	a, err := c.exchange(ctx, r)
	if err != nil {
		return err
	}
	if out == nil || len(a.body) == 0 {
		return nil
	}
	if err := json.Unmarshal(a.body, out); err != nil {
		return fmt.Errorf("%s: decoding %s %s: %w", c.cfg.Service, r.Method, pathOnly(r.Path), err)
	}
	return nil
}

// exchange performs r through the breaker and returns a 2xx answer, or the
// error the answer or its absence makes.
func (c *Client) exchange(ctx context.Context, r Request) (answer, error) {
	var payload []byte
	if r.Body != nil {
		var err error
		if payload, err = json.Marshal(r.Body); err != nil {
			return answer{}, fmt.Errorf("%s: encoding request: %w", c.cfg.Service, err)
		}
	}
	timeout := c.cfg.Timeout
	if r.Timeout != 0 {
		timeout = r.Timeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var a answer
	var err error
	if c.breakers == nil {
		a, err = c.send(ctx, r, payload)
	} else {
		tenant := r.Tenant
		if tenant == "" {
			tenant = tenantOf(ctx, r.Auth)
		}
		a, _, err = c.breakers.Do(tenant, func() (answer, int, error) {
			a, err := c.send(ctx, r, payload)
			return a, a.status, err
		})
	}
	if errors.Is(err, breaker.ErrOpen) {
		return answer{}, fmt.Errorf("%w: %s: %w", ErrUnavailable, c.cfg.Service, err)
	}
	if err != nil {
		return answer{}, err
	}
	if a.status < 200 || a.status > 299 {
		return answer{}, decodeError(c.cfg.Service, a)
	}
	return a, nil
}

// send performs one request; err is a transport error (no answer read).
func (c *Client) send(ctx context.Context, r Request, payload []byte) (answer, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, c.cfg.BaseURL+r.Path, rd)
	if err != nil {
		return answer{}, fmt.Errorf("%s: building request: %w", c.cfg.Service, err)
	}
	if auth := strings.TrimSpace(r.Auth); auth != "" {
		if !strings.HasPrefix(auth, "Bearer ") {
			auth = "Bearer " + auth
		}
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := reqid.From(ctx); id != "" {
		req.Header.Set(reqid.Header, id)
	}
	obs.Inject(ctx, req.Header) // the callee continues the caller's trace
	if r.IdempotencyKey != "" {
		req.Header.Set("Idempotency-Key", r.IdempotencyKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %s %s: %w", c.cfg.Service, r.Method, pathOnly(r.Path), err)
	}
	defer resp.Body.Close()
	idempotency.NoteForwarded(ctx, resp.Header)
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody))
	if err != nil {
		return answer{}, fmt.Errorf("%s: reading %s %s: %w", c.cfg.Service, r.Method, pathOnly(r.Path), err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// pathOnly drops the query of a path: a query may carry a phone number or
// a name, which errors (and so logs) must not.
func pathOnly(p string) string {
	path, _, _ := strings.Cut(p, "?")
	return path
}

// tenantOf is the tenant of a call's token: when the request being served
// passes its own verified token on (authz.Middleware put both in ctx), its
// claims' tenant, which is the token's tenant_id claim; else that claim as
// breaker.TenantOf decodes it. Decoding an internal token's claims (1.5-4 kB
// with its abilities) cost more than the rest of a cached call.
func tenantOf(ctx context.Context, auth string) string {
	token := strings.TrimPrefix(strings.TrimSpace(auth), "Bearer ")
	if c := authz.FromContext(ctx); c != nil && token != "" && token == authz.TokenFrom(ctx) {
		return c.TenantID
	}
	return breaker.TenantOf(auth)
}
