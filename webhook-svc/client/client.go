// Package client is what other services import to call webhook-svc: the
// tenant dashboard lists and creates webhook endpoints through the public
// routes (/api/v1/webhook-endpoints) with the internal token of the
// signed-in user, so the API's gates (api:view-any-webhook,
// api:create-webhook), validation and tenant scope apply unchanged.
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

	"github.com/paylane/paylane/libs/reqid"
)

// DefaultTimeout bounds a call.
const DefaultTimeout = 5 * time.Second

const maxBody = 1 << 20

// Endpoint is a webhook endpoint as the API renders it; SigningSecret is
// set only in the answer to its creation.
type Endpoint struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	URL                 string   `json:"url"`
	SubscribedEvents    []string `json:"subscribed_events"`
	IsActive            bool     `json:"is_active"`
	SigningSecret       string   `json:"signing_secret,omitempty"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	LastSucceededAt     *string  `json:"last_succeeded_at"`
	LastFailedAt        *string  `json:"last_failed_at"`
	DisabledAt          *string  `json:"disabled_at"`
	CreatedAt           string   `json:"created_at"`
}

// EndpointInput creates an endpoint.
type EndpointInput struct {
	Name             string   `json:"name"`
	URL              string   `json:"url"`
	SubscribedEvents []string `json:"subscribed_events"`
}

// Error is an answer other than 2xx: its status and envelope.
type Error struct {
	Status  int
	Code    string
	Message string
	Details map[string][]string
}

func (e *Error) Error() string {
	return fmt.Sprintf("webhook-svc answered %d %s: %s", e.Status, e.Code, e.Message)
}

// StatusOf returns the status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Client calls webhook-svc. Share one per process.
type Client struct {
	baseURL string
	hc      *http.Client
}

// New returns a client for webhook-svc at baseURL (http://webhook-svc:8080).
// A nil hc uses a client with DefaultTimeout.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), hc: hc}
}

// Endpoints lists the tenant's endpoints, newest first (at most 100).
func (c *Client) Endpoints(ctx context.Context, token string) ([]Endpoint, error) {
	var out []Endpoint
	return out, c.call(ctx, http.MethodGet, "/api/v1/webhook-endpoints?per_page=100", token, nil, &out)
}

// CreateEndpoint creates an endpoint; the answer carries its signing
// secret, this once. A refused input is a 422 *Error with Details.
func (c *Client) CreateEndpoint(ctx context.Context, token string, in EndpointInput) (*Endpoint, error) {
	var out Endpoint
	return &out, c.call(ctx, http.MethodPost, "/api/v1/webhook-endpoints", token, in, &out)
}

func (c *Client) call(ctx context.Context, method, path, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("webhook client: encoding request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return fmt.Errorf("webhook client: building request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := reqid.From(ctx); id != "" {
		req.Header.Set(reqid.Header, id)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("webhook client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("webhook client: reading %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &Error{Status: resp.StatusCode}
		var env struct {
			Error struct {
				Code    string              `json:"code"`
				Message string              `json:"message"`
				Details map[string][]string `json:"details"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &env) == nil {
			e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		}
		return e
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Data == nil {
		return fmt.Errorf("webhook client: %s %s: answer is not {data}", method, path)
	}
	return json.Unmarshal(env.Data, out)
}
