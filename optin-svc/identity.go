package optin

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
	out := store.Tenant{ID: t.ID, Name: t.Name, DefaultRegion: t.DefaultRegion, OptIn: t.Flags.OptIn,
		UpdatedAt: t.UpdatedAt}
	if t.SMSNumber != nil {
		out.SMSNumber = *t.SMSNumber
	}
	return out, nil
}
