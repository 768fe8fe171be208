package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Create validates in, resolves its contact with contacts-svc and stores a
// receivable or payable with its parent transaction: pending with its link
// sent by SMS, or scheduled when send_at is in the future. The rules of
// active published campaigns of the direction choose its campaign. It emits
// <domain>.created (and transaction.campaign_assigned when a campaign
// matched) and, when pending, notification.requested.
func (a *App) Create(ctx context.Context, scope Scope, d txn.Direction, in txn.Input) (txn.Item, error) {
	var out txn.Item
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		defs, err := tx.AllDefinitions(ctx)
		if err != nil {
			return err
		}
		now := a.Now()
		f, err := txn.ValidateCreate(in, txn.Rules{Now: now, DefaultCurrency: scope.Currency, Definitions: fielddef.NewSet(defs)})
		if err != nil {
			return err
		}
		contact, err := a.resolve(ctx, scope, in)
		if err != nil {
			return err
		}
		it := newItem(d, contact, f, now)
		out, err = a.insert(ctx, tx, it)
		return err
	})
	return out, err
}

// draftTTL is how long a draft waits for its confirmation.
const draftTTL = 24 * time.Hour

// newItem builds a new item from validated fields: pending, or scheduled
// when send_at is set.
func newItem(d txn.Direction, c Contact, f txn.Fields, now time.Time) txn.Item {
	it := txn.Item{
		ID: ids.NewAt(now), TransactionID: ids.NewAt(now), Direction: d, ContactID: c.ID,
		Recipient: txn.Recipient{FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone},
		Status:    txn.Pending, CreatedAt: now, UpdatedAt: now,
	}
	setFields(&it, f)
	if f.SendAt != nil {
		it.Status = txn.Scheduled
	}
	return it
}

// setFields copies validated fields onto an item.
func setFields(it *txn.Item, f txn.Fields) {
	it.Amount, it.Currency, it.Description, it.DueDate = f.Amount, f.Currency, f.Description, f.DueDate
	it.ExternalID, it.SendAt, it.LinkTTLHours, it.CustomFields = f.ExternalID, f.SendAt, f.LinkTTLHours, f.CustomFields
}

// insert stores a new item, assigns its campaign, and sends or schedules it.
func (a *App) insert(ctx context.Context, tx *store.Tx, it txn.Item) (txn.Item, error) {
	assigned, err := a.matchCampaign(ctx, tx, &it)
	if err != nil {
		return txn.Item{}, err
	}
	if it.Status == txn.Pending {
		if err := a.issueLink(ctx, tx, &it); err != nil {
			return txn.Item{}, err
		}
	}
	if it.Rail, it.RailID, err = tx.CurrentRail(ctx); err != nil {
		return txn.Item{}, err
	}
	if err := tx.InsertItem(ctx, it); err != nil {
		return txn.Item{}, err
	}
	if err := a.emit(ctx, tx, it, evCreated); err != nil {
		return txn.Item{}, err
	}
	if assigned != nil {
		if err := a.emitAssigned(ctx, tx, it, nil, true); err != nil {
			return txn.Item{}, err
		}
	}
	switch it.Status {
	case txn.Scheduled:
		return it, tx.Schedule(ctx, it, store.KindSend, *it.SendAt)
	case txn.Draft:
		return it, tx.Schedule(ctx, it, store.KindDraftExpiry, it.CreatedAt.Add(draftTTL))
	}
	if err := a.sendLink(ctx, tx, &it); err != nil {
		return txn.Item{}, err
	}
	return it, tx.UpdateItem(ctx, it)
}

// matchCampaign sets the campaign whose rules the new item meets first.
func (a *App) matchCampaign(ctx context.Context, tx *store.Tx, it *txn.Item) (*campaign.Campaign, error) {
	list, err := tx.AssignableCampaigns(ctx, it.Direction)
	if err != nil {
		return nil, err
	}
	c, ok, err := campaign.Select(list, it.Direction, campaign.Subject{Amount: it.Amount, Currency: it.Currency, CustomFields: it.CustomFields})
	if err != nil || !ok {
		return nil, err
	}
	it.CampaignID = &c.ID
	return &c, nil
}
