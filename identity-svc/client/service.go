package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// ErrTenantNotFound is returned (with the *Error of the answer) when
// identity-svc knows no such tenant, or no tenant owns the SMS number.
var ErrTenantNotFound = errors.New("tenant not found")

// ServiceTokenMargin is how long before its expiry a cached service token
// stops being handed out, so that it never expires on its way to a service.
const ServiceTokenMargin = 10 * time.Second

// ServiceToken is identity-svc's answer to a service-token request.
type ServiceToken struct {
	InternalToken          string    `json:"internal_token"`
	InternalTokenExpiresAt time.Time `json:"internal_token_expires_at"`
}

// tokenKey identifies a cached service token: the tenant and the sorted,
// deduplicated abilities, joined by NUL (which neither contains).
type tokenKey string

// NewWithSecret returns a client that also calls the service-to-service
// routes, authenticated by serviceSecret (identity-svc's SERVICE_SECRET).
// It names itself by the running program's name; WithService names it
// otherwise. A nil hc uses a client with a 10 s timeout.
func NewWithSecret(baseURL, serviceSecret string, hc *http.Client) *Client {
	c := New(baseURL, hc)
	c.secret = serviceSecret
	c.service = programName()
	return c
}

// WithService returns a client like c (same server, secret and HTTP
// client) that names its caller service in service-token requests; the
// name becomes the tokens' subject, "service:<name>". It has its own cache.
func (c *Client) WithService(name string) *Client {
	return &Client{core: c.core, hc: c.hc, secret: c.secret, service: name}
}

// ServiceToken returns an internal JWT for tenantID carrying abilities (the
// order does not matter), for calls a service makes without a user's
// request. Tokens are cached per tenant and set of abilities, and reused
// until ServiceTokenMargin before they expire. ErrTenantNotFound when the
// tenant does not exist; an *Error for any other refusal (422 for unknown
// abilities, 401 for a wrong secret, 404 route_not_found when identity-svc
// has no service secret).
func (c *Client) ServiceToken(ctx context.Context, tenantID string, abilities []string) (string, error) {
	sorted := slices.Compact(slices.Sorted(slices.Values(abilities)))
	key := tokenKey(tenantID + "\x00" + strings.Join(sorted, "\x00"))
	if tok, ok := c.cachedToken(key); ok {
		return tok, nil
	}
	body := map[string]any{"tenant_id": tenantID, "abilities": sorted, "service": c.service}
	var out envelope[ServiceToken]
	if err := c.callService(ctx, http.MethodPost, "/internal/v1/service-tokens", body, &out); err != nil {
		return "", fmt.Errorf("getting a service token: %w", err)
	}
	c.remember(key, out.Data)
	return out.Data.InternalToken, nil
}

// Tenant reads a tenant: its flags, SMS number, region, currency and
// effective limits. ErrTenantNotFound for an unknown id.
func (c *Client) Tenant(ctx context.Context, id string) (*Tenant, error) {
	var out envelope[Tenant]
	if err := c.callService(ctx, http.MethodGet, "/internal/v1/tenants/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, fmt.Errorf("reading tenant: %w", err)
	}
	return &out.Data, nil
}

// TenantBySMSNumber returns the tenant whose SMS sender number is e164 (the
// tenant an inbound SMS to that number belongs to). ErrTenantNotFound when
// no tenant owns it.
func (c *Client) TenantBySMSNumber(ctx context.Context, e164 string) (*Tenant, error) {
	var out envelope[Tenant]
	path := "/internal/v1/tenants?" + url.Values{"sms_number": {e164}}.Encode()
	if err := c.callService(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, fmt.Errorf("finding tenant by sms number: %w", err)
	}
	return &out.Data, nil
}

// callService sends a request to a service-to-service route with the
// service secret and the request id of ctx, and decodes the answer into
// out. A 404 resource_not_found becomes ErrTenantNotFound (joined with the
// *Error).
func (c *Client) callService(ctx context.Context, method, path string, body, out any) error {
	err := c.core.JSON(ctx, svcclient.Request{Method: method, Path: path, Auth: c.secret, Body: body}, out)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound && apiErr.Code == "resource_not_found" {
		return fmt.Errorf("%w: %w", ErrTenantNotFound, apiErr)
	}
	return err
}

// cachedToken returns the cached token for key while it is fresh enough.
func (c *Client) cachedToken(key tokenKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tokens[key]
	if !ok || !time.Now().Before(t.InternalTokenExpiresAt.Add(-ServiceTokenMargin)) {
		return "", false
	}
	return t.InternalToken, true
}

// forget drops a cached token.
func (c *Client) forget(key tokenKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tokens, key)
}

// remember caches a token and drops the entries past their use, so the
// cache holds at most the tokens in use.
func (c *Client) remember(key tokenKey, t ServiceToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tokens == nil {
		c.tokens = map[tokenKey]ServiceToken{}
	}
	now := time.Now()
	for k, old := range c.tokens {
		if !now.Before(old.InternalTokenExpiresAt.Add(-ServiceTokenMargin)) {
			delete(c.tokens, k)
		}
	}
	c.tokens[key] = t
}

// programName is the running program's name as a service name ("optin-svc"
// for its binary): lower case, characters outside [a-z0-9._-] as '-', at
// most 63 characters; "service" when nothing is left.
func programName() string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		default:
			return '-'
		}
	}, strings.ToLower(filepath.Base(os.Args[0])))
	name = strings.TrimLeft(name, "._-")
	if len(name) > 63 {
		name = name[:63]
	}
	if name == "" {
		return "service"
	}
	return name
}
