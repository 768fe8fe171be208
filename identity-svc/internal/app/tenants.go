package app

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/libs/ids"
)

// CreateTenant validates the body and creates a tenant with a new ULID; the
// fields it does not carry take the deployment defaults.
func (a *App) CreateTenant(ctx context.Context, p tenant.Patch) (tenant.Tenant, error) {
	if fields := p.Validate(true); fields != nil {
		return tenant.Tenant{}, &ValidationError{Fields: fields}
	}
	now := a.now()
	t := p.Apply(tenant.New(ids.NewAt(now), now))
	created, err := a.store.CreateTenant(ctx, t)
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("creating tenant: %w", err)
	}
	return created, nil
}

// UpdateTenant applies a partial update to a tenant.
func (a *App) UpdateTenant(ctx context.Context, id string, p tenant.Patch) (tenant.Tenant, error) {
	if !ids.Valid(id) {
		return tenant.Tenant{}, tenant.ErrNotFound
	}
	if fields := p.Validate(false); fields != nil {
		return tenant.Tenant{}, &ValidationError{Fields: fields}
	}
	updated, err := a.store.UpdateTenant(ctx, id, func(current tenant.Tenant) (tenant.Tenant, error) {
		next := p.Apply(current)
		next.UpdatedAt = a.now()
		return next, nil
	})
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("updating tenant: %w", err)
	}
	return updated, nil
}

// GetTenant reads a tenant; tenant.ErrNotFound for an unknown or malformed id.
func (a *App) GetTenant(ctx context.Context, id string) (tenant.Tenant, error) {
	if !ids.Valid(id) {
		return tenant.Tenant{}, tenant.ErrNotFound
	}
	t, err := a.store.GetTenant(ctx, id)
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("reading tenant: %w", err)
	}
	return t, nil
}

// ListTenants reads a page of tenants, newest first, and their total.
func (a *App) ListTenants(ctx context.Context, p Page) ([]tenant.Tenant, int, error) {
	list, total, err := a.store.ListTenants(ctx, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing tenants: %w", err)
	}
	return list, total, nil
}
