package app

import (
	"context"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/store"
)

// DeleteEndpoint deletes an endpoint and cancels its pending and retrying
// deliveries; its delivery history is kept.
func (a *App) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return a.store.Write(ctx, idempotency.Tx{}, tenantID, func(tx *store.Tx) error {
		if _, err := tx.Endpoint(ctx, id, true); err != nil {
			return err
		}
		now := a.timestamp()
		if _, err := tx.CancelOpenDeliveries(ctx, id, now); err != nil {
			return err
		}
		return tx.DeleteEndpoint(ctx, id, now)
	})
}
