package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// Identity reads tenants from identity-svc.
type Identity interface {
	// Tenant returns a tenant; an unknown one is an error wrapping
	// optin.ErrNotFound.
	Tenant(ctx context.Context, id string) (store.Tenant, error)
}

// tenant returns what optin-svc knows of a tenant: the local copy kept
// from tenant.updated, else identity-svc's answer (then kept). An unknown
// tenant is optin.ErrNotFound.
func (a *App) tenant(ctx context.Context, id string) (store.Tenant, error) {
	t, err := a.store.Tenant(ctx, id)
	if err == nil || !errors.Is(err, optin.ErrNotFound) {
		return t, err
	}
	if a.identity == nil {
		return store.Tenant{}, optin.ErrNotFound
	}
	t, err = a.identity.Tenant(ctx, id)
	if err != nil {
		return store.Tenant{}, fmt.Errorf("reading tenant %s: %w", id, err)
	}
	if err := a.store.ApplyTenant(ctx, t); err != nil {
		return store.Tenant{}, err
	}
	return t, nil
}

// region is the tenant's default region for national numbers, else the
// deployment's.
func (a *App) region(t store.Tenant) string {
	if t.DefaultRegion != "" {
		return t.DefaultRegion
	}
	return a.sending.DefaultRegion
}
