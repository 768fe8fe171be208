package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// issueLink gives it a new link valid LinkTTLHours from now and schedules
// its expiry. Links carry whole seconds; a new link always expires strictly
// later than the one it replaces, so a revoked URL can never become the
// current one again. The decline count starts again with the new link.
func (a *App) issueLink(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	exp := a.Now().Add(time.Duration(it.LinkTTLHours) * time.Hour).Truncate(time.Second)
	if prev := it.Link.ExpiresAt; prev != nil && !exp.After(*prev) {
		exp = prev.Add(time.Second)
	}
	it.Link = txn.Link{ExpiresAt: &exp}
	it.Declines = 0
	return tx.Schedule(ctx, *it, store.KindLinkExpiry, exp)
}

// sendLink sends the item's link by SMS: the live link, or a new one when
// none is live (first send, or after a revoke).
func (a *App) sendLink(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	if !it.Link.Live(a.Now()) {
		if err := a.issueLink(ctx, tx, it); err != nil {
			return err
		}
	}
	return a.notify(ctx, tx, it, linkKind(it.Direction), linkMessage(*it, a.linkURL(*it)))
}

// linkMessage is the SMS that carries an item's link.
func linkMessage(it txn.Item, url string) string {
	amount := txn.FormatAmount(it.Amount, it.Currency)
	what := ""
	if it.Description != nil {
		what = " (" + *it.Description + ")"
	}
	if it.Direction == txn.Payable {
		return fmt.Sprintf("Hi %s, a payout of %s%s is waiting for you. Choose where to receive it: %s",
			greeting(it), amount, what, url)
	}
	return fmt.Sprintf("Hi %s, you have a payment request of %s%s. Pay securely: %s", greeting(it), amount, what, url)
}

func greeting(it txn.Item) string {
	if it.Recipient.FirstName != "" {
		return it.Recipient.FirstName
	}
	return "there"
}

// notify asks optin-svc to send body to the item's recipient: it keeps the
// notification (number and text, which may hold a signed link) and writes
// notification.requested, an internal event that carries only its ids, in
// the same transaction; records when; and schedules the next campaign step.
func (a *App) notify(ctx context.Context, tx *store.Tx, it *txn.Item, kind, body string) error {
	env, n, err := notification(ctx, tx.TenantID(), *it, kind, body)
	if err != nil {
		return err
	}
	if err := tx.SaveNotifications(ctx, []store.Notification{n}); err != nil {
		return err
	}
	if err := tx.Publish(ctx, env); err != nil {
		return err
	}
	now := a.Now()
	it.Progress.LastSMSAt = &now
	return a.scheduleFollowUp(ctx, tx, *it)
}

// notification is the notification asking optin-svc to send body to the
// item's recipient, and its notification.requested event (ids only: the
// number and the text stay in transactions-svc, served by Notification).
func notification(ctx context.Context, tenantID string, it txn.Item, kind, body string) (events.Envelope, store.Notification, error) {
	n := store.Notification{ID: ids.New(), ItemID: it.ID, Direction: it.Direction, Kind: kind, To: it.Recipient.Phone, Body: body}
	env, err := events.New(events.TypeNotificationRequested, tenantID, reqid.From(ctx), events.NotificationRequested{
		NotificationID: n.ID, Kind: kind, TransactionID: it.TransactionID, Direction: string(it.Direction),
		ContactID: it.ContactID,
	})
	return env, n, err
}

// Notification returns the tenant's notification id (its number and text),
// for optin-svc; an unknown or expired id is txn.ErrNotFound.
func (a *App) Notification(ctx context.Context, s Scope, id string) (store.Notification, error) {
	var n store.Notification
	err := a.store.Read(ctx, s.TenantID, func(tx *store.Tx) error {
		var err error
		n, err = tx.Notification(ctx, id)
		return err
	})
	return n, err
}

// linkKind is the notification kind of an item's link SMS.
func linkKind(d txn.Direction) string {
	if d == txn.Payable {
		return events.KindPayoutLink
	}
	return events.KindPaymentLink
}

// scheduleFollowUp queues the next step of the item's campaign, counted
// from its last SMS, or drops a queued one when no step is left.
func (a *App) scheduleFollowUp(ctx context.Context, tx *store.Tx, it txn.Item) error {
	step, ok, err := a.nextStep(ctx, tx, it)
	if err != nil {
		return err
	}
	if !ok || it.Progress.LastSMSAt == nil || it.Status != txn.Pending {
		return tx.Unschedule(ctx, it.ID, store.KindFollowUp)
	}
	due := it.Progress.LastSMSAt.Add(time.Duration(step.DelayHours) * time.Hour)
	return tx.Schedule(ctx, it, store.KindFollowUp, due)
}

// nextStep returns the campaign step the item is due to receive next.
func (a *App) nextStep(ctx context.Context, tx *store.Tx, it txn.Item) (campaign.Step, bool, error) {
	if it.CampaignID == nil {
		return campaign.Step{}, false, nil
	}
	c, err := tx.Campaign(ctx, *it.CampaignID, false)
	if err != nil {
		if errors.Is(err, campaign.ErrNotFound) {
			return campaign.Step{}, false, nil
		}
		return campaign.Step{}, false, err
	}
	if !c.IsActive || c.Status == campaign.Archived || it.Progress.StepsSent >= len(c.Steps) {
		return campaign.Step{}, false, nil
	}
	return c.Steps[it.Progress.StepsSent], true, nil
}

// stopWork drops every queued wake-up of an item that reached a final state.
func stopWork(ctx context.Context, tx *store.Tx, it txn.Item) error {
	return tx.Unschedule(ctx, it.ID, store.KindSend, store.KindLinkExpiry, store.KindDraftExpiry, store.KindFollowUp,
		store.KindRailTimeout)
}
