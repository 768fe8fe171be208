package app

import (
	"context"

	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// emitAssigned records transaction.campaign_assigned for the item's campaign.
func (a *App) emitAssigned(ctx context.Context, tx *store.Tx, it txn.Item, previous *string, automatic bool) error {
	env, err := a.assignedEvent(ctx, tx.TenantID(), it, previous, automatic)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, env)
}

// assignedEvent is the transaction.campaign_assigned event of the item's
// campaign.
func (a *App) assignedEvent(ctx context.Context, tenantID string, it txn.Item, previous *string, automatic bool) (events.Envelope, error) {
	data := events.CampaignAssigned{
		TransactionID: it.TransactionID, Direction: string(it.Direction), ContactID: it.ContactID,
		CampaignID: *it.CampaignID, PreviousCampaignID: previous, Automatic: automatic, AssignedAt: apitime.Format(a.Now()),
	}
	if it.Direction == txn.Payable {
		data.PayableID = it.ID
	} else {
		data.ReceivableID = it.ID
	}
	return events.New(events.TypeTransactionCampaignAssigned, tenantID, reqid.From(ctx), data)
}
