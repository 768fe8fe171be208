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
	// TenantBySMSNumber returns the tenant whose sender number is e164; none
	// is an error wrapping optin.ErrNotFound.
	TenantBySMSNumber(ctx context.Context, e164 string) (store.Tenant, error)
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

// inboundTenant finds the tenant an inbound SMS from a number to a sender
// number belongs to: the tenant whose own number it is (local copy, else
// identity-svc); else the tenant that last wrote to the person from that
// number (the shared default number); else, for the default number, the
// configured default tenant.
func (a *App) inboundTenant(ctx context.Context, from, to string) (store.Tenant, error) {
	t, err := a.store.TenantBySMSNumber(ctx, to)
	if err == nil || !errors.Is(err, optin.ErrNotFound) {
		return t, err
	}
	if a.identity != nil {
		t, err = a.identity.TenantBySMSNumber(ctx, to)
		if err == nil {
			return t, a.store.ApplyTenant(ctx, t)
		}
		if !errors.Is(err, optin.ErrNotFound) {
			return store.Tenant{}, fmt.Errorf("finding the tenant of a sender number: %w", err)
		}
	}
	id, err := a.store.ConversationTenant(ctx, to, from)
	if errors.Is(err, optin.ErrNotFound) && to == a.sending.DefaultFrom && a.sending.DefaultTenant != "" {
		id, err = a.sending.DefaultTenant, nil
	}
	if errors.Is(err, optin.ErrNotFound) {
		return store.Tenant{}, optin.ErrNoTenant
	}
	if err != nil {
		return store.Tenant{}, err
	}
	t, err = a.tenant(ctx, id)
	if errors.Is(err, optin.ErrNotFound) {
		return store.Tenant{}, optin.ErrNoTenant
	}
	return t, err
}
