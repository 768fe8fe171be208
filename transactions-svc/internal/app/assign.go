package app

import (
	"context"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// emitAssigned records transaction.campaign_assigned for the item's campaign.
func (a *App) emitAssigned(ctx context.Context, tx *store.Tx, it txn.Item, previous *string, automatic bool) error {
	data := events.CampaignAssigned{
		TransactionID: it.TransactionID, Direction: string(it.Direction), ContactID: it.ContactID,
		CampaignID: *it.CampaignID, PreviousCampaignID: previous, Automatic: automatic, AssignedAt: wire.Time(a.Now()),
	}
	if it.Direction == txn.Payable {
		data.PayableID = it.ID
	} else {
		data.ReceivableID = it.ID
	}
	env, err := events.New(events.TypeTransactionCampaignAssigned, tx.TenantID(), reqid.From(ctx), data)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, env)
}
