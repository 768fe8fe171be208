package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// AssignCampaign assigns a transaction to a campaign: 409 already_assigned
// (campaign.ErrAlreadyAssigned) when it has one and reassign is false;
// campaign.ErrNotAssignable for an unknown, deleted, inactive, unpublished
// or other-direction campaign. The follow-up steps start again from the
// transaction's last SMS. It emits transaction.campaign_assigned and
// <domain>.updated.
func (a *App) AssignCampaign(ctx context.Context, scope Scope, transactionID, campaignID string, reassign bool) (txn.Item, error) {
	if err := checkID(transactionID); err != nil {
		return txn.Item{}, err
	}
	var out txn.Item
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		it, err := tx.LockByTransaction(ctx, transactionID)
		if err != nil {
			return err
		}
		if it.CampaignID != nil && !reassign {
			return campaign.ErrAlreadyAssigned
		}
		if err := assignable(ctx, tx, campaignID, it.Direction); err != nil {
			return err
		}
		previous := it.CampaignID
		it.CampaignID, it.Progress.StepsSent = &campaignID, 0
		if err := a.save(ctx, tx, &it); err != nil {
			return err
		}
		if err := a.emitAssigned(ctx, tx, it, previous, false); err != nil {
			return err
		}
		out = it
		return a.scheduleFollowUp(ctx, tx, it)
	})
	return out, err
}

// assignable checks that campaignID names a campaign a transaction of
// direction d may join.
func assignable(ctx context.Context, tx *store.Tx, campaignID string, d txn.Direction) error {
	_, err := assignableCampaign(ctx, tx, campaignID, d)
	return err
}
