package app

import (
	"context"

	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// ListEndpoints returns a page of the tenant's endpoints, newest first, and
// the total.
func (a *App) ListEndpoints(ctx context.Context, tenantID string, p Page) ([]webhook.Endpoint, int, error) {
	var (
		list  []webhook.Endpoint
		total int
	)
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListEndpoints(ctx, p.Limit, p.Offset)
		return err
	})
	return list, total, err
}

// GetEndpoint returns one endpoint; webhook.ErrNotFound when the tenant has
// no such live endpoint.
func (a *App) GetEndpoint(ctx context.Context, tenantID, id string) (webhook.Endpoint, error) {
	if err := checkID(id); err != nil {
		return webhook.Endpoint{}, err
	}
	var e store.EndpointRow
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		e, err = tx.Endpoint(ctx, id, false)
		return err
	})
	return e.Endpoint, err
}
