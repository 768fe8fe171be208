package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/paylane/paylane/libs/svcclient"
)

// Admin calls the operator plane (/admin/v1) with the admin token: directly
// on identity-svc, or through the gateway's admin listener, which routes
// other /admin/v1 paths to their owning services.
type Admin struct {
	core  *svcclient.Client
	token string
}

// NewAdmin returns an admin client for baseURL (scheme and host, for example
// https://localhost:8444). A nil hc uses a client with a 10 s timeout.
func NewAdmin(baseURL, adminToken string, hc *http.Client) *Admin {
	return &Admin{core: core("admin plane", baseURL, hc), token: adminToken}
}

// Do sends a request with a JSON body (none when body is nil) to path (which
// may carry a query) and decodes a 2xx JSON answer into out (skipped when out
// is nil). Any other status is returned as an *Error.
func (a *Admin) Do(ctx context.Context, method, path string, body, out any) error {
	return a.core.JSON(ctx, svcclient.Request{Method: method, Path: path, Auth: a.token, Body: body}, out)
}

type envelope[T any] struct {
	Data T `json:"data"`
}

// CreateTenant creates a tenant.
func (a *Admin) CreateTenant(ctx context.Context, in TenantInput) (*Tenant, error) {
	var out envelope[Tenant]
	if err := a.Do(ctx, http.MethodPost, "/admin/v1/tenants", in, &out); err != nil {
		return nil, fmt.Errorf("creating tenant: %w", err)
	}
	return &out.Data, nil
}

// UpdateTenant changes the fields of in that are set.
func (a *Admin) UpdateTenant(ctx context.Context, id string, in TenantInput) (*Tenant, error) {
	var out envelope[Tenant]
	if err := a.Do(ctx, http.MethodPatch, tenantPath(id), in, &out); err != nil {
		return nil, fmt.Errorf("updating tenant: %w", err)
	}
	return &out.Data, nil
}

// GetTenant reads one tenant.
func (a *Admin) GetTenant(ctx context.Context, id string) (*Tenant, error) {
	var out envelope[Tenant]
	if err := a.Do(ctx, http.MethodGet, tenantPath(id), nil, &out); err != nil {
		return nil, fmt.Errorf("reading tenant: %w", err)
	}
	return &out.Data, nil
}

// ListTenants reads a page of tenants, newest first.
func (a *Admin) ListTenants(ctx context.Context, opts ListOptions) (*TenantPage, error) {
	var out TenantPage
	if err := a.Do(ctx, http.MethodGet, "/admin/v1/tenants"+opts.query(), nil, &out); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	return &out, nil
}

// CreateToken mints a token for a tenant; the answer carries the plaintext
// token, shown only this once.
func (a *Admin) CreateToken(ctx context.Context, tenantID string, in TokenInput) (*NewToken, error) {
	var out envelope[NewToken]
	if err := a.Do(ctx, http.MethodPost, tenantPath(tenantID)+"/tokens", in, &out); err != nil {
		return nil, fmt.Errorf("creating token: %w", err)
	}
	return &out.Data, nil
}

// ListTokens reads a page of a tenant's tokens, newest first.
func (a *Admin) ListTokens(ctx context.Context, tenantID string, opts ListOptions) (*TokenPage, error) {
	var out TokenPage
	if err := a.Do(ctx, http.MethodGet, tenantPath(tenantID)+"/tokens"+opts.query(), nil, &out); err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	return &out, nil
}

// RevokeToken revokes a token; revoking a revoked token succeeds.
func (a *Admin) RevokeToken(ctx context.Context, tenantID string, id int64) error {
	path := tenantPath(tenantID) + "/tokens/" + strconv.FormatInt(id, 10)
	if err := a.Do(ctx, http.MethodDelete, path, nil, nil); err != nil {
		return fmt.Errorf("revoking token: %w", err)
	}
	return nil
}

func tenantPath(id string) string { return "/admin/v1/tenants/" + url.PathEscape(id) }

func (o ListOptions) query() string {
	q := url.Values{}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(o.PerPage))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
