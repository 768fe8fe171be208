package app

import (
	"context"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// UpdateEndpoint applies in (mode Replace for PUT, Patch for PATCH).
// Turning is_active off cancels the endpoint's pending and retrying
// deliveries; turning it on re-enables an endpoint the platform disabled
// and resets its consecutive failures.
func (a *App) UpdateEndpoint(ctx context.Context, wtx idempotency.Tx, tenantID, id string, in webhook.Input, mode webhook.Mode) (webhook.Endpoint, error) {
	if err := checkID(id); err != nil {
		return webhook.Endpoint{}, err
	}
	ch, err := webhook.Validate(in, mode)
	if err != nil {
		return webhook.Endpoint{}, err
	}
	var e store.EndpointRow
	err = a.store.Write(ctx, wtx, tenantID, func(tx *store.Tx) error {
		if e, err = tx.Endpoint(ctx, id, true); err != nil {
			return err
		}
		now := a.timestamp()
		wasActive := e.IsActive
		apply(&e.Endpoint, ch)
		switch {
		case wasActive && !e.IsActive:
			if _, err := tx.CancelOpenDeliveries(ctx, id, now); err != nil {
				return err
			}
		case !wasActive && e.IsActive:
			e.ConsecutiveFailures = 0
			e.DisabledAt = nil
		}
		e.UpdatedAt = now
		return tx.UpdateEndpoint(ctx, e)
	})
	return e.Endpoint, err
}

// apply copies the validated changes onto e.
func apply(e *webhook.Endpoint, ch webhook.Changes) {
	if ch.Name != nil {
		e.Name = *ch.Name
	}
	if ch.URL != nil {
		e.URL = *ch.URL
	}
	if ch.SubscribedEvents != nil {
		e.SubscribedEvents = ch.SubscribedEvents
	}
	if ch.IsActive != nil {
		e.IsActive = *ch.IsActive
	}
}
