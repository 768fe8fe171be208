package app

import (
	"context"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// RotateSecret gives the endpoint a new signing secret and returns it in
// plaintext, once. The replaced secret keeps signing deliveries (a second
// signature) for webhook.PreviousSecretGrace, so receivers can switch
// without dropping any. Delivery history is kept.
func (a *App) RotateSecret(ctx context.Context, wtx idempotency.Tx, tenantID, id string) (webhook.WithSecret, error) {
	if err := checkID(id); err != nil {
		return webhook.WithSecret{}, err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return webhook.WithSecret{}, err
	}
	sealed, err := a.seal(tenantID, id, secret)
	if err != nil {
		return webhook.WithSecret{}, err
	}
	var e store.EndpointRow
	err = a.store.Write(ctx, wtx, tenantID, func(tx *store.Tx) error {
		if e, err = tx.Endpoint(ctx, id, true); err != nil {
			return err
		}
		now := a.timestamp()
		until := now.Add(webhook.PreviousSecretGrace)
		e.PreviousSecret, e.PreviousSecretUntil = e.Secret, &until
		e.Secret = sealed
		e.UpdatedAt = now
		return tx.UpdateEndpoint(ctx, e)
	})
	if err != nil {
		return webhook.WithSecret{}, err
	}
	return webhook.WithSecret{Endpoint: e.Endpoint, SigningSecret: secret}, nil
}
