// Package app holds identity-svc's use cases, one per file: tenant and
// token administration and token introspection. It validates requests,
// applies the domain rules and calls the store; it knows nothing of HTTP.
package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
)

// Store is the persistence the use cases need (implemented by
// internal/store against Postgres).
type Store interface {
	CreateTenant(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error)
	GetTenant(ctx context.Context, id string) (tenant.Tenant, error)
	TenantBySMSNumber(ctx context.Context, number string) (tenant.Tenant, error)
	ListTenants(ctx context.Context, limit, offset int) ([]tenant.Tenant, int, error)
	UpdateTenant(ctx context.Context, id string, change func(tenant.Tenant) (tenant.Tenant, error)) (tenant.Tenant, error)
	CreateToken(ctx context.Context, tenantID string, m token.Mint, secretHash []byte, now time.Time) (token.Token, error)
	ListTokens(ctx context.Context, tenantID string, limit, offset int) ([]token.Token, int, error)
	RevokeToken(ctx context.Context, tenantID string, id int64, now time.Time) error
	Introspect(ctx context.Context, id int64, now time.Time, check func(token.Token) error) (token.Token, tenant.Tenant, error)
	UserStore
}

// Signer signs internal tokens (authz.Signer).
type Signer interface {
	Sign(c authz.Claims, ttl time.Duration) (string, time.Time, error)
}

// App runs the use cases.
type App struct {
	store     Store
	users     UserStore
	publicURL string
	signer    Signer
	tokenTTL  time.Duration
	now       func() time.Time
	known     func(string) bool
	newSecret func() (string, error)
}

// New returns the use cases on a store, signing internal tokens valid for
// tokenTTL with signer.
func New(store Store, signer Signer, tokenTTL time.Duration) *App {
	return &App{
		store:     store,
		users:     store,
		signer:    signer,
		tokenTTL:  tokenTTL,
		now:       time.Now,
		known:     authz.NewCatalogue().Known,
		newSecret: token.NewSecret,
	}
}

// WithPublicURL sets the public origin of the links the app hands out
// (set-password links); without it they are paths on the public host.
func (a *App) WithPublicURL(u string) *App {
	a.publicURL = u
	return a
}

// ValidationError reports invalid input: messages per field.
type ValidationError struct {
	Fields map[string][]string
}

// Error implements the error interface.
func (e *ValidationError) Error() string { return "invalid input" }

// APIError answers 422 validation_failed with the fields' messages.
func (e *ValidationError) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// Page selects part of a collection.
type Page struct {
	Limit, Offset int
}
