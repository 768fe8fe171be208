package app

import (
	"context"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// MessagesConsumer names the consumer of message.* events in the inbox.
const MessagesConsumer = "transactions-svc.messages"

// reported is a message.* event this service applies.
type reported struct {
	eventID  string
	tenantID string
	m        events.Message
}

// ApplyMessages keeps transactions' latest_message, and the state of the
// notification each message was sent for, from a batch of optin-svc's
// message.* events (events.ConsumeBatch), in the batch's order. Events
// about no transaction of this service need nothing, and a malformed event
// is skipped: no retry can make it well formed. The rest are grouped by
// tenant (in the order the tenants first appear), and each group is applied
// in one transaction scoped to its tenant that claims its events (inbox:
// redeliveries change nothing) and writes the news that wins per
// transaction and per notification in set-based statements (two, as a
// rule: store.RecordMessages); news older than what the transaction (or
// notification) shows is ignored. The result is that of applying the
// events one at a time. When a group fails, the groups before it stay committed and
// the error is returned: the consumer retries the whole batch, and the
// inbox skips what is in already.
func (a *App) ApplyMessages(ctx context.Context, batch []events.Envelope) error {
	var list []reported
	for _, env := range batch {
		if r, ok := decodeMessage(env); ok {
			list = append(list, r)
		}
	}
	for _, g := range tenancy.ByTenant(list, func(r reported) string { return r.tenantID }) {
		if err := a.applyMessages(ctx, g.TenantID, g.Items); err != nil {
			return err
		}
	}
	return nil
}

// decodeMessage returns the message of env, or false when env is not a
// message.* event about a transaction or cannot be stored: a NUL character
// fits no text column, and the statement holding it would fail on every
// retry.
func decodeMessage(env events.Envelope) (reported, bool) {
	if !strings.HasPrefix(env.Type, "message.") || tenancy.CheckTenantID(env.TenantID) != nil {
		return reported{}, false
	}
	var m events.Message
	if err := env.Decode(&m); err != nil {
		return reported{}, false
	}
	if m.TransactionID == "" || checkID(m.TransactionID) != nil {
		return reported{}, false
	}
	for _, s := range []string{env.ID, m.ID, m.NotificationID, m.Status, m.Channel} {
		if strings.ContainsRune(s, 0) {
			return reported{}, false
		}
	}
	return reported{eventID: env.ID, tenantID: env.TenantID, m: m}, true
}

// applyMessages applies one tenant's messages, in order, in one
// transaction: it claims their events at once and writes, of the claimed
// ones, the news that wins per transaction and per notification.
func (a *App) applyMessages(ctx context.Context, tenantID string, list []reported) error {
	eventIDs := make([]string, len(list))
	for i, r := range list {
		eventIDs[i] = r.eventID
	}
	return a.store.Write(ctx, idempotency.Tx{}, tenantID, func(tx *store.Tx) error {
		claimed, err := tx.ClaimEvents(ctx, MessagesConsumer, eventIDs)
		if err != nil || len(claimed) == 0 {
			return err
		}
		// A claimed event counts once: its first copy in the batch (a
		// second one is a redelivery, as it would be in a later batch).
		fresh := make(map[string]bool, len(claimed))
		for _, id := range claimed {
			fresh[id] = true
		}
		var msgs []events.Message
		for _, r := range list {
			if fresh[r.eventID] {
				msgs = append(msgs, r.m)
				delete(fresh, r.eventID)
			}
		}
		return tx.RecordMessages(ctx, newestPerTransaction(msgs), newestPerNotification(msgs))
	})
}

// The reductions below pick, from messages in the order they arrived, what
// applying them one at a time with the store's rule would leave; the store
// applies what they pick with the same rule against what it holds
// (store.RecordMessages), so news older than what is stored still changes
// nothing. They compare times as the database does, to the microsecond
// (optin-svc's times have no finer part).

// newestPerTransaction reduces messages to the entries that can still
// change their transactions' latest_message, in the order to apply them.
// The rule: a message replaces the one shown when it was created later, or
// when it is the same message updated as late or later. A message keeps
// its created_at in all its events (optin-svc sets it once), so only the
// messages created last can end up shown: the first of them to arrive
// replaces anything older, and after it only updates of the message shown
// apply. Per transaction that leaves, for each message created last, its
// latest update (the last of equal ones), in the order the messages first
// arrived; usually a single entry. When one message arrives with different
// created_at values, the transaction's messages are all kept, in order.
func newestPerTransaction(msgs []events.Message) []store.TransactionMessage {
	var order []string
	byTx := map[string][]events.Message{}
	for _, m := range msgs {
		if _, ok := byTx[m.TransactionID]; !ok {
			order = append(order, m.TransactionID)
		}
		byTx[m.TransactionID] = append(byTx[m.TransactionID], m)
	}
	var out []store.TransactionMessage
	for _, id := range order {
		for _, m := range newestOfTransaction(byTx[id]) {
			out = append(out, store.TransactionMessage{TransactionID: id, Message: store.LatestMessage{
				ID: m.ID, Status: m.Status, Channel: m.Channel, SentAt: m.SentAt, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
			}})
		}
	}
	return out
}

// newestOfTransaction is newestPerTransaction for the messages of one
// transaction.
func newestOfTransaction(msgs []events.Message) []events.Message {
	created := make(map[string]time.Time, len(msgs))
	var last time.Time
	for _, m := range msgs {
		c := dbTime(m.CreatedAt)
		if prev, ok := created[m.ID]; ok && !prev.Equal(c) {
			return msgs
		}
		created[m.ID] = c
		if c.After(last) {
			last = c
		}
	}
	return latestPer(msgs, func(m events.Message) (string, bool) { return m.ID, dbTime(m.CreatedAt).Equal(last) })
}

// newestPerNotification reduces messages to one state per notification:
// the latest update (the last of equal ones), as a notification takes any
// report as late as or later than the one it holds.
func newestPerNotification(msgs []events.Message) []store.MessageState {
	latest := latestPer(msgs, func(m events.Message) (string, bool) { return m.NotificationID, m.NotificationID != "" })
	var out []store.MessageState
	for _, m := range latest {
		out = append(out, store.MessageState{NotificationID: m.NotificationID, Status: m.Status, SentAt: m.SentAt, UpdatedAt: m.UpdatedAt})
	}
	return out
}

// latestPer keeps, of the messages key takes (ok), the latest update per
// key (the last of equal ones), in the order the keys first appear.
func latestPer(msgs []events.Message, key func(events.Message) (k string, ok bool)) []events.Message {
	var out []events.Message
	index := map[string]int{}
	for _, m := range msgs {
		k, ok := key(m)
		if !ok {
			continue
		}
		i, seen := index[k]
		switch {
		case !seen:
			index[k] = len(out)
			out = append(out, m)
		case !dbTime(m.UpdatedAt).Before(dbTime(out[i].UpdatedAt)):
			out[i] = m
		}
	}
	return out
}

// dbTime is t as Postgres keeps it (microseconds).
func dbTime(t time.Time) time.Time { return t.Truncate(time.Microsecond) }
