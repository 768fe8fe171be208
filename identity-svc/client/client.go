// Package client is what other services import to call identity-svc: token
// introspection and the JWKS location for the gateway, service tokens and
// tenant lookups for services working without a user's request, and the
// admin API client behind paylane-admin.
package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/libs/svcclient"
)

// ErrInvalidToken is returned when identity-svc answers 401: the token is
// unknown, malformed, expired, revoked or from another deployment.
var ErrInvalidToken = errors.New("invalid token")

// Introspection is what identity-svc knows about a valid token, with an
// internal JWT to forward to services.
type Introspection struct {
	TenantID               string       `json:"tenant_id"`
	TokenID                int64        `json:"token_id"`
	Abilities              []string     `json:"abilities"`
	Flags                  authz.Flags  `json:"flags"`
	Limits                 authz.Limits `json:"limits"`
	InternalToken          string       `json:"internal_token"`
	InternalTokenExpiresAt time.Time    `json:"internal_token_expires_at"`
}

// Client calls the internal routes of identity-svc. A Client made by
// NewWithSecret also calls the service-to-service routes, and caches the
// service tokens it gets. A Client is safe for concurrent use.
type Client struct {
	core *svcclient.Client
	hc   *http.Client
	// secret is the service secret (SERVICE_SECRET of identity-svc), and
	// service the caller's name sent with service-token requests.
	secret, service string

	mu     sync.Mutex
	tokens map[tokenKey]ServiceToken
}

// New returns a client for the identity-svc at baseURL (for example
// http://identity-svc:8080). A nil hc uses a client with a 10 s timeout.
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: core("identity-svc", baseURL, hc), hc: hc}
}

// JWKSURL is the URL of the JWKS that verifies internal tokens.
func (c *Client) JWKSURL() string { return c.core.BaseURL() + "/internal/v1/jwks" }

// Introspect resolves a presented bearer token. It returns ErrInvalidToken
// when identity-svc refuses the token, and an *Error for any other answer
// that is not 200. requestID, when not empty, is sent as X-Request-Id.
func (c *Client) Introspect(ctx context.Context, token, requestID string) (*Introspection, error) {
	var out struct {
		Data Introspection `json:"data"`
	}
	ctx = reqid.With(ctx, requestID)
	err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodPost, Path: "/internal/v1/introspect",
		Body: map[string]string{"token": token}}, &out)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusUnauthorized {
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, fmt.Errorf("introspecting token: %w", err)
	}
	return &out.Data, nil
}
