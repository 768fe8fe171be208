package app

import (
	"context"
	"errors"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// RunDue does the scheduled work of a claimed queue row, in the row's tenant
// scope with the item locked. The row only says "look at this item now":
// the item's state decides, so a duplicate or stale row does nothing, and
// work not yet due is queued again for its time. An item that no longer
// exists needs nothing.
func (a *App) RunDue(ctx context.Context, d store.Due) error {
	_, err := a.change(ctx, idempotency.Tx{}, d.TenantID, d.Direction, d.ItemID, func(tx *store.Tx, it *txn.Item) error {
		switch d.Kind {
		case store.KindSend:
			return a.sendDue(ctx, tx, it)
		case store.KindLinkExpiry:
			return a.linkExpiryDue(ctx, tx, it)
		case store.KindDraftExpiry:
			if it.Status == txn.Draft && !a.Now().Before(it.CreatedAt.Add(draftTTL)) {
				return a.expire(ctx, tx, it, txn.DraftTimeout)
			}
			return nil
		case store.KindFollowUp:
			return a.followUpDue(ctx, tx, it)
		case store.KindRailTimeout:
			return a.railTimeoutDue(ctx, tx, it)
		}
		return nil
	})
	if errors.Is(err, txn.ErrNotFound) {
		return nil
	}
	return err
}

// sendDue moves a scheduled item whose send_at has come to pending and
// sends its link.
func (a *App) sendDue(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	if it.Status != txn.Scheduled || it.SendAt == nil {
		return nil
	}
	if a.Now().Before(*it.SendAt) {
		return tx.Schedule(ctx, *it, store.KindSend, *it.SendAt)
	}
	if err := move(it, txn.SendDue); err != nil {
		return err
	}
	if err := a.sendLink(ctx, tx, it); err != nil {
		return err
	}
	return a.save(ctx, tx, it)
}

// linkExpiryDue expires a scheduled or pending item whose link's TTL has
// passed. Other states keep theirs (a payable whose destination is
// selected, a paid receivable).
func (a *App) linkExpiryDue(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	exp := it.Link.ExpiresAt
	if exp == nil {
		return nil
	}
	if a.Now().Before(*exp) {
		return tx.Schedule(ctx, *it, store.KindLinkExpiry, *exp)
	}
	if !it.Direction.Machine().Allows(it.Status, txn.LinkExpired) {
		return nil
	}
	return a.expire(ctx, tx, it, txn.LinkExpired)
}

// followUpDue sends the next campaign step of a pending item with a live
// link, delay_hours after its previous SMS.
func (a *App) followUpDue(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	now := a.Now()
	if it.Status != txn.Pending || !it.Link.Live(now) || it.Progress.LastSMSAt == nil {
		return nil
	}
	step, ok, err := a.nextStep(ctx, tx, *it)
	if err != nil || !ok {
		return err
	}
	if due := it.Progress.LastSMSAt.Add(time.Duration(step.DelayHours) * time.Hour); now.Before(due) {
		return tx.Schedule(ctx, *it, store.KindFollowUp, due)
	}
	it.Progress.StepsSent++
	body := campaign.Render(step.Message, it.Recipient.FirstName, txn.FormatAmount(it.Amount, it.Currency), a.linkURL(*it))
	if err := a.notify(ctx, tx, it, events.KindFollowUp, body); err != nil {
		return err
	}
	return tx.UpdateItem(ctx, *it)
}
