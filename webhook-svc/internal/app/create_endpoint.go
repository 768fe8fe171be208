package app

import (
	"context"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// CreateEndpoint validates in and stores a new endpoint with a new signing
// secret, which it returns in plaintext: the only time besides
// rotate-secret that anyone sees it.
func (a *App) CreateEndpoint(ctx context.Context, wtx idempotency.Tx, tenantID string, in webhook.Input) (webhook.WithSecret, error) {
	ch, err := webhook.Validate(in, webhook.Create)
	if err != nil {
		return webhook.WithSecret{}, err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return webhook.WithSecret{}, err
	}
	now := a.timestamp()
	e := store.EndpointRow{Endpoint: webhook.Endpoint{
		ID: ids.NewAt(now), TenantID: tenantID, Name: *ch.Name, URL: *ch.URL,
		SubscribedEvents: ch.SubscribedEvents, IsActive: true, CreatedAt: now, UpdatedAt: now,
	}}
	if ch.IsActive != nil {
		e.IsActive = *ch.IsActive
	}
	if e.Secret, err = a.seal(tenantID, e.ID, secret); err != nil {
		return webhook.WithSecret{}, err
	}
	err = a.store.Write(ctx, wtx, tenantID, func(tx *store.Tx) error {
		return tx.InsertEndpoint(ctx, e)
	})
	if err != nil {
		return webhook.WithSecret{}, err
	}
	return webhook.WithSecret{Endpoint: e.Endpoint, SigningSecret: secret}, nil
}
