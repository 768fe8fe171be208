package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// prepare checks a tenant's leased messages and returns those to send. When
// the tenant's transaction fails, each message is tried in one of its own,
// so one message's trouble does not hold the others back; a message that
// still fails stays leased and comes due again when the lease runs out.
func (a *App) prepare(ctx context.Context, items []store.QueueItem) []*send {
	tenantID := items[0].TenantID
	from, err := a.senderNumber(ctx, tenantID)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn("dispatching messages", "tenant_id", tenantID, "messages", len(items), "err", err)
		}
		return nil // the leases run out and the messages come due again
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.MessageID
	}
	sends, err := a.prepareSends(ctx, tenantID, ids, from)
	if err == nil || len(ids) == 1 || ctx.Err() != nil {
		a.warnDispatch(ctx, tenantID, ids, err)
		return sends
	}
	for _, id := range ids {
		one, err := a.prepareSends(ctx, tenantID, []string{id}, from)
		a.warnDispatch(ctx, tenantID, []string{id}, err)
		sends = append(sends, one...)
	}
	return sends
}

// prepareSends checks the suppression list again for the tenant's messages
// of ids (it may have changed since they were queued) and records the
// sender number, in one transaction. It returns the messages to send; the
// others leave the queue: gone or no longer queued, suppressed, or failed
// for want of a sender number.
func (a *App) prepareSends(ctx context.Context, tenantID string, ids []string, from string) ([]*send, error) {
	var sends []*send
	err := a.store.WriteQueued(ctx, tenantID, func(tx *store.Tx) error {
		sends = nil
		ms, err := tx.MessagesForUpdate(ctx, ids)
		if err != nil {
			return err
		}
		var w writes
		queued := ms[:0]
		for _, m := range ms {
			if m.Status == optin.MessageQueued {
				queued = append(queued, m)
			}
		}
		w.dequeue(missing(ids, queued)...) // gone, or sent or finished meanwhile
		if len(queued) == 0 {
			return w.write(ctx, tx)
		}
		numbers := make([]string, len(queued))
		for i, m := range queued {
			numbers[i] = m.To
		}
		suppressed, err := tx.SuppressedAmong(ctx, numbers, optin.ChannelSMS)
		if err != nil {
			return err
		}
		now := a.timestamp()
		for _, m := range queued {
			m.From = from
			switch {
			case suppressed[m.To]:
				m.Move(optin.MessageSuppressed, now)
				err = w.finish(ctx, m)
			case m.From == "":
				m.Move(optin.MessageFailed, now)
				m.FailureReason = "no_sender_number"
				err = w.finish(ctx, m)
			default:
				m.UpdatedAt = now
				w.updated = append(w.updated, m)
				sends = append(sends, &send{tenantID: tenantID, out: sms.Outgoing{MessageID: m.ID, To: m.To,
					From: m.From, Body: m.Body, StatusCallback: a.statusCallbackURL(tenantID, m.ID)}})
			}
			if err != nil {
				return err
			}
		}
		return w.write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return sends, nil
}

// record writes the provider's answers for a tenant's messages, in one
// transaction that outlives a stopping dispatcher by up to recordTimeout
// (the provider has answered). When it fails, each answer is recorded in a
// transaction of its own, so that one message's trouble does not leave the
// others leased (to be sent again when their leases run out).
func (a *App) record(ctx context.Context, sends []*send) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	err := a.recordSends(rctx, sends)
	cancel()
	if err == nil || len(sends) == 1 {
		a.warnDispatch(ctx, sends[0].tenantID, sendIDs(sends), err)
		return
	}
	for _, s := range sends {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		err := a.recordSends(rctx, []*send{s})
		cancel()
		a.warnDispatch(ctx, s.tenantID, []string{s.out.MessageID}, err)
	}
}

// recordSends writes each answer of sends (one tenant's): sent (and
// delivered, for the sink), a retry after a transient error while attempts
// remain, or failed; a message the pass did not call is due again at once.
func (a *App) recordSends(ctx context.Context, sends []*send) error {
	tenantID := sends[0].tenantID
	return a.store.WriteQueued(ctx, tenantID, func(tx *store.Tx) error {
		ms, err := tx.MessagesForUpdate(ctx, sendIDs(sends))
		if err != nil {
			return err
		}
		byID := make(map[string]optin.Message, len(ms))
		for _, m := range ms {
			byID[m.ID] = m
		}
		now := a.timestamp()
		var w writes
		for _, s := range sends {
			m, ok := byID[s.out.MessageID]
			switch {
			case !ok || m.Status != optin.MessageQueued:
				w.dequeue(s.out.MessageID)
				continue
			case !s.called:
				w.retries = append(w.retries, store.Due{MessageID: m.ID, At: now})
				continue
			}
			m.Attempts++
			if s.err == nil {
				if err := w.accepted(ctx, m, s.res, now); err != nil {
					return err
				}
				continue
			}
			perr := sms.AsError(s.err)
			m.FailureReason = perr.Reason
			if perr.Transient && m.Attempts < a.sending.MaxAttempts {
				m.UpdatedAt = now
				w.updated = append(w.updated, m)
				w.retries = append(w.retries, store.Due{MessageID: m.ID, At: now.Add(a.retryDelay(m.Attempts, perr.RetryAfter))})
				continue
			}
			m.Move(optin.MessageFailed, now)
			if err := w.finish(ctx, m); err != nil {
				return err
			}
			// The failure's writes and event go first, as for one message.
			if err := w.write(ctx, tx); err != nil {
				return err
			}
			if err := a.afterPermanentFailure(ctx, tx, m, perr); err != nil {
				return err
			}
		}
		return w.write(ctx, tx)
	})
}

// writes collects a transaction's writes of many messages, so that they
// cost a few set-based statements (store's UpdateMessages and the like)
// instead of several statements a message.
type writes struct {
	updated       []optin.Message
	dequeued      []string
	retries       []store.Due
	events        []events.Envelope
	conversations []store.Conversation
}

func (w *writes) dequeue(ids ...string) { w.dequeued = append(w.dequeued, ids...) }

// publish adds the message.* event of m's status (newEvent, as publish
// builds it).
func (w *writes) publish(ctx context.Context, m optin.Message) error {
	env, err := newEvent(ctx, m.TenantID, messageEventType(m.Status), "", MessageEvent(m))
	if err != nil {
		return err
	}
	w.events = append(w.events, env)
	return nil
}

// finish writes a message that left the queue and announces its status.
func (w *writes) finish(ctx context.Context, m optin.Message) error {
	w.updated = append(w.updated, m)
	w.dequeue(m.ID)
	return w.publish(ctx, m)
}

// accepted marks a message the provider took: sent, and delivered when
// the provider says so at once.
func (w *writes) accepted(ctx context.Context, m optin.Message, res sms.Result, now time.Time) error {
	m.ProviderMessageID = res.ProviderMessageID
	m.FailureReason = ""
	m.Move(optin.MessageSent, now)
	if res.Delivered {
		// message.sent first, then finish announces delivered.
		if err := w.publish(ctx, m); err != nil {
			return err
		}
		// A microsecond later, so consumers that keep the latest update of
		// a message (by updated_at) never take sent for the newer news.
		m.Move(optin.MessageDelivered, now.Add(time.Microsecond))
	}
	if err := w.finish(ctx, m); err != nil {
		return err
	}
	w.conversations = append(w.conversations, store.Conversation{From: m.From, To: m.To, At: now})
	return nil
}

// write sends what w collected to tx, events in the order they were
// added, and empties w.
func (w *writes) write(ctx context.Context, tx *store.Tx) error {
	if err := tx.UpdateMessages(ctx, w.updated); err != nil {
		return err
	}
	if err := tx.DequeueMessages(ctx, w.dequeued); err != nil {
		return err
	}
	if err := tx.EnqueueMessages(ctx, w.retries); err != nil {
		return err
	}
	if err := tx.PublishAll(ctx, w.events); err != nil {
		return err
	}
	if err := tx.RecordConversations(ctx, w.conversations); err != nil {
		return err
	}
	*w = writes{}
	return nil
}

// missing returns the ids that have no message in ms.
func missing(ids []string, ms []optin.Message) []string {
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
	}
	var out []string
	for _, id := range ids {
		if !have[id] {
			out = append(out, id)
		}
	}
	return out
}

func sendIDs(sends []*send) []string {
	ids := make([]string, len(sends))
	for i, s := range sends {
		ids[i] = s.out.MessageID
	}
	return ids
}

// warnDispatch logs a failed prepare or record of the tenant's messages
// (nothing for a nil err, or once the dispatcher is stopping).
func (a *App) warnDispatch(ctx context.Context, tenantID string, ids []string, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	if len(ids) == 1 {
		a.log.Warn("dispatching message", "message_id", ids[0], "tenant_id", tenantID, "err", err)
		return
	}
	a.log.Warn("dispatching messages", "tenant_id", tenantID, "messages", len(ids), "err", err)
}
