// Package client is what other services import to call webhook-svc: the
// tenant dashboard lists and creates webhook endpoints through the public
// routes (/api/v1/webhook-endpoints) with the internal token of the
// signed-in user, so the API's gates (api:view-any-webhook,
// api:create-webhook), validation and tenant scope apply unchanged. Calls go
// through libs/svcclient (a breaker per tenant, a timeout per call).
package client

import (
	"context"
	"net/http"

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

// CreateEndpoint creates an endpoint; the answer carries its signing
// secret, this once. A refused input is a 422 *Error (Fields names them).
func (c *Client) CreateEndpoint(ctx context.Context, token string, in EndpointInput) (*Endpoint, error) {
	var out Endpoint
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: "/api/v1/webhook-endpoints", Auth: token, Body: in}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
