package optinsvc

import (
	"context"
	"errors"
	"fmt"

	idclient "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// identityTenants reads tenants from identity-svc (app.Identity).
type identityTenants struct {
	client *idclient.Client
}

// Tenant implements app.Identity.
func (i identityTenants) Tenant(ctx context.Context, id string) (store.Tenant, error) {
	t, err := i.client.Tenant(ctx, id)
	if errors.Is(err, idclient.ErrTenantNotFound) {
		return store.Tenant{}, fmt.Errorf("tenant %s: %w", id, optin.ErrNotFound)
	}
	if err != nil {
		return store.Tenant{}, err
	}
	return tenantOf(t), nil
}

// TenantBySMSNumber implements app.Identity.
func (i identityTenants) TenantBySMSNumber(ctx context.Context, e164 string) (store.Tenant, error) {
	t, err := i.client.TenantBySMSNumber(ctx, e164)
	if errors.Is(err, idclient.ErrTenantNotFound) {
		return store.Tenant{}, fmt.Errorf("sender number: %w", optin.ErrNotFound)
	}
	if err != nil {
		return store.Tenant{}, err
	}
	return tenantOf(t), nil
}

// tenantOf converts identity-svc's tenant to the local copy's terms.
func tenantOf(t *idclient.Tenant) store.Tenant {
	out := store.Tenant{ID: t.ID, Name: t.Name, DefaultRegion: t.DefaultRegion, OptIn: t.Flags.OptIn,
		UpdatedAt: t.UpdatedAt}
	if t.SMSNumber != nil {
		out.SMSNumber = *t.SMSNumber
	}
	return out
}
