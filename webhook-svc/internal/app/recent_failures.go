package app

import (
	"context"

	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// MaxRecentFailures bounds how many recent failures one call returns.
const MaxRecentFailures = 25

// RecentFailures returns the tenant's latest failed deliveries across its
// endpoints, latest attempt first: at most limit, within 1 and
// MaxRecentFailures.
func (a *App) RecentFailures(ctx context.Context, tenantID string, limit int) ([]webhook.Failure, error) {
	limit = min(max(limit, 1), MaxRecentFailures)
	var list []webhook.Failure
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		list, err = tx.RecentFailures(ctx, limit)
		return err
	})
	return list, err
}
