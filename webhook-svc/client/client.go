// Package client is what other services import to call webhook-svc: the
// tenant dashboard lists, reads, creates and updates webhook endpoints,
// rotates their secrets and reads their deliveries through the public
// routes (/api/v1/webhook-endpoints) with the internal token of the
// signed-in user, so the API's gates (api:view-any-webhook,
// api:view-webhook, api:create-webhook, api:update-webhook), validation,
// idempotency and tenant scope apply unchanged; its overview reads the
// recent failed deliveries on an internal route with the same token. Calls
// go through libs/svcclient (a breaker per tenant, a timeout per call).
package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/paylane/paylane/libs/svcclient"
)

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

// Error is an answer other than 2xx (svcclient.Error): its status, code and
// envelope; Fields gives a 422's messages per field.
type Error = svcclient.Error

// StatusOf returns the status of an *Error in err's chain, or 0.
func StatusOf(err error) int { return svcclient.StatusOf(err) }

// Client calls webhook-svc. Share one per process.
type Client struct {
	core *svcclient.Client
}

// New returns a client for webhook-svc at baseURL (http://webhook-svc:8080).
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: svcclient.New(svcclient.Config{Service: "webhook-svc", BaseURL: baseURL, HTTP: hc, Breaker: true})}
}

// Endpoints lists the tenant's endpoints, newest first (at most 100).
func (c *Client) Endpoints(ctx context.Context, token string) ([]Endpoint, error) {
	var out []Endpoint
	err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: "/api/v1/webhook-endpoints?per_page=100", Auth: token}, &out)
	return out, err
}

// CreateEndpoint creates an endpoint under idempotencyKey (none when
// empty); the answer carries its signing secret, this once: a repeated key
// answers the first creation without it. A refused input is a 422 *Error
// (Fields names them).
func (c *Client) CreateEndpoint(ctx context.Context, token, idempotencyKey string, in EndpointInput) (*Endpoint, error) {
	var out Endpoint
	err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: "/api/v1/webhook-endpoints", Auth: token,
		IdempotencyKey: idempotencyKey, Body: in}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Endpoint reads one endpoint (never its secret); a 404 *Error when the
// tenant has no such endpoint.
func (c *Client) Endpoint(ctx context.Context, token, id string) (*Endpoint, error) {
	var out Endpoint
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: endpointPath(id), Auth: token}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndpointPatch is a partial update of an endpoint: nil fields are kept.
// IsActive true re-enables a disabled endpoint and resets its failure
// count.
type EndpointPatch struct {
	Name             *string  `json:"name,omitempty"`
	URL              *string  `json:"url,omitempty"`
	SubscribedEvents []string `json:"subscribed_events,omitempty"`
	IsActive         *bool    `json:"is_active,omitempty"`
}

// UpdateEndpoint patches an endpoint (PATCH) under idempotencyKey (none
// when empty). A refused input is a 422 *Error.
func (c *Client) UpdateEndpoint(ctx context.Context, token, idempotencyKey, id string, in EndpointPatch) (*Endpoint, error) {
	var out Endpoint
	err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPatch, Path: endpointPath(id), Auth: token,
		IdempotencyKey: idempotencyKey, Body: in}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// RotateSecret gives an endpoint a new signing secret under idempotencyKey
// (none when empty): the answer carries it this once. A repeated key
// answers the first rotation without the secret (SigningSecret empty).
func (c *Client) RotateSecret(ctx context.Context, token, idempotencyKey, id string) (*Endpoint, error) {
	var out Endpoint
	err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: endpointPath(id) + "/rotate-secret", Auth: token,
		IdempotencyKey: idempotencyKey, Body: struct{}{}}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Attempt is one HTTP request of a delivery.
type Attempt struct {
	Number         int     `json:"number"`
	Status         string  `json:"status"`
	ResponseStatus *int    `json:"response_status"`
	Error          *string `json:"error"`
	AttemptedAt    string  `json:"attempted_at"`
	DurationMS     int     `json:"duration_ms"`
}

// Delivery is a row of an endpoint's delivery history: the latest
// attempt's outcome, and every attempt.
type Delivery struct {
	ID             string    `json:"id"`
	EndpointID     string    `json:"endpoint_id"`
	EventID        string    `json:"event_id"`
	EventType      string    `json:"event_type"`
	Status         string    `json:"status"`
	AttemptCount   int       `json:"attempt_count"`
	ResponseStatus *int      `json:"response_status"`
	LastError      *string   `json:"last_error"`
	NextAttemptAt  *string   `json:"next_attempt_at"`
	DeliveredAt    *string   `json:"delivered_at"`
	CreatedAt      string    `json:"created_at"`
	Attempts       []Attempt `json:"attempts"`
}

// Meta places a page in its collection.
type Meta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
	// TotalIsEstimate: more rows match than a list counts exactly and
	// Total is an estimate (libs/listtotal).
	TotalIsEstimate bool `json:"total_is_estimate,omitempty"`
}

// DeliveryPage is a page of an endpoint's deliveries, newest first.
type DeliveryPage struct {
	Data []Delivery `json:"data"`
	Meta Meta       `json:"meta"`
}

// DeliveryOptions selects a page of deliveries; zero values use the
// service's defaults, empty filters match all.
type DeliveryOptions struct {
	Page      int
	PerPage   int
	Status    string
	EventType string
}

// Deliveries reads a page of an endpoint's delivery history, newest first;
// a 404 *Error for no such endpoint, a 422 for a bad filter.
func (c *Client) Deliveries(ctx context.Context, token, id string, opts DeliveryOptions) (*DeliveryPage, error) {
	q := url.Values{}
	if opts.Page > 0 {
		q.Set("page", strconv.Itoa(opts.Page))
	}
	if opts.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(opts.PerPage))
	}
	if opts.Status != "" {
		q.Set("status", opts.Status)
	}
	if opts.EventType != "" {
		q.Set("event_type", opts.EventType)
	}
	path := endpointPath(id) + "/deliveries"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out DeliveryPage
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Failure is a delivery whose last attempt failed, with its endpoint's
// name and URL.
type Failure struct {
	ID             string  `json:"id"`
	EndpointID     string  `json:"endpoint_id"`
	EndpointName   string  `json:"endpoint_name"`
	EndpointURL    string  `json:"endpoint_url"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	Status         string  `json:"status"`
	AttemptCount   int     `json:"attempt_count"`
	ResponseStatus *int    `json:"response_status"`
	LastError      *string `json:"last_error"`
	LastAttemptAt  string  `json:"last_attempt_at"`
}

// RecentFailures reads the tenant's latest failed deliveries across its
// endpoints, latest attempt first, at most limit (1 to 25), with the
// endpoints list's gate (api:view-any-webhook).
func (c *Client) RecentFailures(ctx context.Context, token string, limit int) ([]Failure, error) {
	var out []Failure
	path := "/internal/v1/webhook-deliveries/failing?limit=" + strconv.Itoa(limit)
	err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token}, &out)
	return out, err
}

func endpointPath(id string) string { return "/api/v1/webhook-endpoints/" + url.PathEscape(id) }
