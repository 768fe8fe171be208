package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// RequestNotifications handles a batch's notification.requested events of
// one tenant (envs, in their order): it reads the notifications' numbers
// and texts from transactions-svc (the events carry ids only), a hundred
// per call, then in one transaction claims the events and records their
// messages (recordMessages: once per notification id, queued for the
// dispatcher, or suppressed or failed when they cannot be sent). An event
// of an earlier producer that still carries to and body is used as it is.
// When transactions-svc cannot answer, it returns the error and nothing is
// recorded, so the batch is retried; a notification transactions-svc does
// not have is recorded failed (notification_unavailable).
func (a *App) RequestNotifications(ctx context.Context, tenantID string, envs []events.Envelope) error {
	reqs := make([]MessageRequest, 0, len(envs))
	eventIDs := make([]string, 0, len(envs))
	var fetch []int // the requests to read from transactions-svc
	for _, env := range envs {
		var n events.NotificationRequested
		if err := env.Decode(&n); err != nil {
			a.log.Error("skipping an undecodable notification", "event_id", env.ID, "err", err)
			continue
		}
		req := MessageRequest{NotificationID: n.NotificationID, Kind: n.Kind, TransactionID: n.TransactionID,
			ContactID: n.ContactID, To: n.To, Body: n.Body, RequestID: env.RequestID}
		if req.NotificationID == "" {
			req.NotificationID = env.ID
		}
		if !storable(env.ID, req) {
			a.log.Error("skipping a notification that cannot be stored", "event_id", env.ID)
			continue
		}
		if n.To == "" && n.Body == "" && n.NotificationID != "" {
			// An id transactions-svc cannot have made is never there.
			req.Unavailable = !ids.Valid(n.NotificationID)
			if !req.Unavailable {
				fetch = append(fetch, len(reqs))
			}
		}
		reqs = append(reqs, req)
		eventIDs = append(eventIDs, env.ID)
	}
	if len(reqs) == 0 {
		return nil
	}
	if err := a.fetchNotifications(ctx, tenantID, reqs, fetch); err != nil {
		return err
	}
	queued := 0
	err := a.store.Write(ctx, idempotency.Tx{}, tenantID, func(tx *store.Tx) error {
		claimed, err := tx.ClaimAll(ctx, consumerName, eventIDs)
		if err != nil || len(claimed) == 0 {
			return err
		}
		first := make([]MessageRequest, 0, len(claimed))
		for i, req := range reqs {
			if _, ok := slices.BinarySearch(claimed, eventIDs[i]); ok {
				first = append(first, req)
			}
		}
		queued, err = a.recordMessages(ctx, tx, first)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording %d notifications of tenant %s: %w", len(reqs), tenantID, err)
	}
	if queued > 0 {
		a.Wake()
	}
	return nil
}

// fetchNotifications fills the number and text of the requests reqs[i]
// of each i in fetch from transactions-svc, or marks them Unavailable when
// transactions-svc does not have them. Any failure is returned: the batch
// is retried.
func (a *App) fetchNotifications(ctx context.Context, tenantID string, reqs []MessageRequest, fetch []int) error {
	if len(fetch) == 0 {
		return nil
	}
	list := make([]string, len(fetch))
	for i, r := range fetch {
		list[i] = reqs[r].NotificationID
	}
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	if a.transactions == nil {
		return fmt.Errorf("reading %d notifications: no transactions-svc client", len(list))
	}
	found, err := a.transactions.Notifications(ctx, tenantID, list)
	if err != nil {
		return fmt.Errorf("reading %d notifications: %w", len(list), err)
	}
	for _, i := range fetch {
		r := &reqs[i]
		n, ok := found[r.NotificationID]
		if !ok {
			a.log.Warn("notification unavailable at transactions-svc; recording the message failed",
				"tenant_id", tenantID, "notification_id", r.NotificationID)
			r.Unavailable = true
			continue
		}
		r.To, r.Body = n.To, n.Body
	}
	return nil
}

// storable reports whether the message of req, from the event eventID, fits
// the messages table: no text holds a NUL character, and the notification
// id and kind are within their lengths. Any other event's statement would
// fail on every retry and hold back the batch it came in, so such an event
// is skipped, as an undecodable one is.
func storable(eventID string, req MessageRequest) bool {
	for _, s := range []string{eventID, req.NotificationID, req.Kind, req.TransactionID, req.ContactID, req.To, req.Body, req.RequestID} {
		if strings.ContainsRune(s, 0) {
			return false
		}
	}
	return utf8.RuneCountInString(req.NotificationID) <= maxNotificationID && utf8.RuneCountInString(req.Kind) <= maxKind
}

// The lengths the messages table allows (migration 00002).
const (
	maxNotificationID = 128
	maxKind           = 64
)
