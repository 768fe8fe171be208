package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// CampaignSteps answers batch-svc's messaging-volume check at submit
// (contract section 7: projected messages = items × steps): with
// campaignID, that campaign's step count (campaign.ErrNotAssignable unless
// it is active, published and of direction d); otherwise with autoAssign,
// the largest step count among the active published campaigns of d;
// otherwise 0.
func (a *App) CampaignSteps(ctx context.Context, scope Scope, d txn.Direction, campaignID string, autoAssign bool) (int, error) {
	if campaignID == "" && !autoAssign {
		return 0, nil
	}
	steps := 0
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		if campaignID != "" {
			c, err := assignableCampaign(ctx, tx, campaignID, d)
			steps = len(c.Steps)
			return err
		}
		list, err := tx.AssignableCampaigns(ctx, d)
		for _, c := range list {
			steps = max(steps, len(c.Steps))
		}
		return err
	})
	return steps, err
}
