package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// bulkWrite collects a chunk's writes so each kind goes to Postgres in one
// statement.
type bulkWrite struct {
	inserts, updates []txn.Item
	wakes            []store.Wake
	events           []events.Envelope
	notifications    []store.Notification
}

// writePlan completes the plan's new items as Create does (campaign, link,
// SMS request, scheduled work) and writes the new and changed items, their
// scheduled work and their events.
func (a *App) writePlan(ctx context.Context, tx *store.Tx, req BulkRequest, env bulkEnv, p *plan) error {
	w := &bulkWrite{}
	railName, railID, err := tx.CurrentRail(ctx)
	if err != nil {
		return err
	}
	for _, t := range p.touched {
		var err error
		if t.created {
			t.it.Rail, t.it.RailID = railName, railID
			err = a.completeNew(ctx, tx.TenantID(), req, env, t, w)
		} else {
			err = a.completeUpdate(ctx, tx.TenantID(), req, t, w)
		}
		if err != nil {
			return err
		}
	}
	if err := tx.InsertItems(ctx, req.Direction, w.inserts); err != nil {
		return err
	}
	if err := tx.SaveReplaced(ctx, req.Direction, w.updates); err != nil {
		return err
	}
	if err := tx.ScheduleMany(ctx, w.wakes); err != nil {
		return err
	}
	if err := tx.SaveNotifications(ctx, w.notifications); err != nil {
		return err
	}
	return tx.PublishMany(ctx, w.events)
}

// completeNew gives a new item its campaign (options.campaign_id, or the
// rules when auto-assigning) and, when pending, its link and the SMS that
// carries it (notification.requested, written whatever EmitEvents says),
// or, when scheduled, its send; then the per-record events when asked for.
func (a *App) completeNew(ctx context.Context, tenantID string, req BulkRequest, env bulkEnv, t *target, w *bulkWrite) error {
	it := &t.it
	c, err := chooseCampaign(env, *it)
	if err != nil {
		return err
	}
	if c != nil {
		id := c.ID
		it.CampaignID = &id
	}
	now := it.CreatedAt
	var sms *events.Envelope
	switch it.Status {
	case txn.Scheduled:
		w.wakes = append(w.wakes, store.Wake{Item: *it, Kind: store.KindSend, DueAt: *it.SendAt})
	case txn.Pending:
		exp := now.Add(time.Duration(it.LinkTTLHours) * time.Hour).Truncate(time.Second)
		it.Link = txn.Link{ExpiresAt: &exp}
		it.Progress.LastSMSAt = &now
		w.wakes = append(w.wakes, store.Wake{Item: *it, Kind: store.KindLinkExpiry, DueAt: exp})
		if c != nil && c.IsActive && c.Status != campaign.Archived && len(c.Steps) > 0 {
			due := now.Add(time.Duration(c.Steps[0].DelayHours) * time.Hour)
			w.wakes = append(w.wakes, store.Wake{Item: *it, Kind: store.KindFollowUp, DueAt: due})
		}
		msg, n, err := notification(ctx, tenantID, *it, linkKind(it.Direction), linkMessage(*it, a.linkURL(*it)))
		if err != nil {
			return err
		}
		sms = &msg
		w.notifications = append(w.notifications, n)
	}
	if req.EmitEvents {
		if err := a.recordEvents(ctx, tenantID, *it, w, evCreated); err != nil {
			return err
		}
		if c != nil {
			ev, err := a.assignedEvent(ctx, tenantID, *it, nil, req.CampaignID == "")
			if err != nil {
				return err
			}
			w.events = append(w.events, ev)
		}
		if t.updated {
			if err := a.recordEvents(ctx, tenantID, *it, w, evUpdated); err != nil {
				return err
			}
		}
	}
	if sms != nil {
		w.events = append(w.events, *sms)
	}
	w.inserts = append(w.inserts, *it)
	return nil
}

// chooseCampaign returns the campaign a new item joins: options.campaign_id's,
// the first whose rules it meets when auto-assigning, or nil; a malformed
// stored rule is an error.
func chooseCampaign(env bulkEnv, it txn.Item) (*campaign.Campaign, error) {
	if env.direct != nil {
		return env.direct, nil
	}
	if len(env.candidates) == 0 {
		return nil, nil
	}
	c, ok, err := campaign.Select(env.candidates, it.Direction, campaign.Subject{Amount: it.Amount, Currency: it.Currency, CustomFields: it.CustomFields})
	if err != nil || !ok {
		return nil, err
	}
	return &c, nil
}

// completeUpdate reschedules a changed scheduled item's send as Replace
// does, and records <domain>.updated when asked for.
func (a *App) completeUpdate(ctx context.Context, tenantID string, req BulkRequest, t *target, w *bulkWrite) error {
	if t.it.Status == txn.Scheduled {
		w.wakes = append(w.wakes, store.Wake{Item: t.it, Kind: store.KindSend, DueAt: *t.it.SendAt})
	}
	w.updates = append(w.updates, t.it)
	if !req.EmitEvents {
		return nil
	}
	return a.recordEvents(ctx, tenantID, t.it, w, evUpdated)
}

// recordEvents adds "<domain>.<name>" events about it to the write.
func (a *App) recordEvents(ctx context.Context, tenantID string, it txn.Item, w *bulkWrite, names ...string) error {
	data := a.View(it)
	for _, name := range names {
		env, err := itemEvent(ctx, tenantID, it, name, data)
		if err != nil {
			return err
		}
		w.events = append(w.events, env)
	}
	return nil
}
