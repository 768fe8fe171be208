package app

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

const (
	// dispatchBatch is how many due messages one pass leases.
	dispatchBatch = 10
	// leaseTime is how long a leased message is left to its dispatcher; a
	// dispatcher that dies mid-call leaves it due again after that.
	leaseTime = 2 * time.Minute
	// maxRetryDelay caps the backoff between provider calls.
	maxRetryDelay = 10 * time.Minute
	// recordTimeout bounds the write of a provider's answer, which runs
	// even when the dispatcher is stopping (the provider has answered).
	recordTimeout = 10 * time.Second
	// StatusCallbackPath is where the provider reports delivery.
	StatusCallbackPath = "/webhooks/sms/status"
)

// RunDispatcher sends due messages until ctx is done: at once when Wake is
// called, and every interval for retries that come due.
func (a *App) RunDispatcher(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		for {
			n, err := a.DispatchDue(ctx)
			if err != nil {
				if ctx.Err() == nil {
					a.log.Warn("dispatching messages", "err", err)
				}
				break
			}
			if n < dispatchBatch {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-ticker.C:
		}
	}
}

// DispatchDue leases the due messages and makes one provider call for
// each; it returns how many it leased.
func (a *App) DispatchDue(ctx context.Context) (int, error) {
	items, err := a.store.ClaimDue(ctx, a.timestamp(), leaseTime, dispatchBatch)
	if err != nil {
		return 0, err
	}
	for _, it := range items {
		if err := a.dispatch(ctx, it); err != nil && ctx.Err() == nil {
			a.log.Warn("dispatching message", "message_id", it.MessageID, "tenant_id", it.TenantID, "err", err)
		}
	}
	return len(items), nil
}

// dispatch checks a leased message, calls the provider outside any
// transaction and records the answer.
func (a *App) dispatch(ctx context.Context, it store.QueueItem) error {
	from, err := a.senderNumber(ctx, it.TenantID)
	if err != nil {
		return err // the lease runs out and the message comes due again
	}
	out, ok, err := a.prepareSend(ctx, it, from)
	if err != nil || !ok {
		return err
	}
	res, sendErr := a.provider.Send(ctx, out)
	a.metrics.sent(a.provider.Name(), sendErr)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	return a.recordSend(rctx, it, res, sendErr)
}

// senderNumber is the tenant's own sender number (local copy, else
// identity-svc), else the deployment's default; "" when neither exists.
func (a *App) senderNumber(ctx context.Context, tenantID string) (string, error) {
	t, err := a.tenant(ctx, tenantID)
	if err != nil && !errors.Is(err, optin.ErrNotFound) {
		return "", err
	}
	if t.SMSNumber != "" {
		return t.SMSNumber, nil
	}
	return a.sending.DefaultFrom, nil
}

// prepareSend checks the suppression list again (it may have changed since
// the message was queued) and records the sender number. ok is false when
// nothing is to be sent.
func (a *App) prepareSend(ctx context.Context, it store.QueueItem, from string) (out sms.Outgoing, ok bool, err error) {
	err = a.store.Write(ctx, idempotency.Tx{}, it.TenantID, func(tx *store.Tx) error {
		m, err := tx.Message(ctx, it.MessageID, true)
		if errors.Is(err, optin.ErrNotFound) {
			return tx.Dequeue(ctx, it.MessageID)
		}
		if err != nil {
			return err
		}
		if m.Status != optin.MessageQueued {
			return tx.Dequeue(ctx, m.ID)
		}
		suppressed, err := tx.IsSuppressed(ctx, m.To, optin.ChannelSMS)
		if err != nil {
			return err
		}
		m.From = from
		now := a.timestamp()
		switch {
		case suppressed:
			m.Move(optin.MessageSuppressed, now)
			return a.finish(ctx, tx, m)
		case m.From == "":
			m.Move(optin.MessageFailed, now)
			m.FailureReason = "no_sender_number"
			return a.finish(ctx, tx, m)
		}
		m.UpdatedAt = now
		ok = true
		out = sms.Outgoing{MessageID: m.ID, To: m.To, From: m.From, Body: m.Body,
			StatusCallback: a.statusCallbackURL(it.TenantID, m.ID)}
		return tx.UpdateMessage(ctx, m)
	})
	return out, ok && err == nil, err
}

// recordSend writes the provider's answer: sent (and delivered, for the
// sink), a retry after a transient error while attempts remain, or failed.
func (a *App) recordSend(ctx context.Context, it store.QueueItem, res sms.Result, sendErr error) error {
	return a.store.Write(ctx, idempotency.Tx{}, it.TenantID, func(tx *store.Tx) error {
		m, err := tx.Message(ctx, it.MessageID, true)
		if err != nil {
			return err
		}
		if m.Status != optin.MessageQueued {
			return tx.Dequeue(ctx, m.ID)
		}
		m.Attempts++
		now := a.timestamp()
		if sendErr == nil {
			return a.recordAccepted(ctx, tx, m, res, now)
		}
		perr := sms.AsError(sendErr)
		m.FailureReason = perr.Reason
		if perr.Transient && m.Attempts < a.sending.MaxAttempts {
			m.UpdatedAt = now
			if err := tx.UpdateMessage(ctx, m); err != nil {
				return err
			}
			return tx.Enqueue(ctx, m.ID, now.Add(a.retryDelay(m.Attempts, perr.RetryAfter)))
		}
		m.Move(optin.MessageFailed, now)
		if err := a.finish(ctx, tx, m); err != nil {
			return err
		}
		return a.afterPermanentFailure(ctx, tx, m, perr)
	})
}

// recordAccepted marks a message the provider took: sent, and delivered
// when the provider says so at once.
func (a *App) recordAccepted(ctx context.Context, tx *store.Tx, m optin.Message, res sms.Result, now time.Time) error {
	m.ProviderMessageID = res.ProviderMessageID
	m.FailureReason = ""
	m.Move(optin.MessageSent, now)
	if res.Delivered {
		// message.sent first, then finish announces delivered.
		if err := publish(ctx, tx, messageEventType(m.Status), "", MessageEvent(m)); err != nil {
			return err
		}
		// A microsecond later, so consumers that keep the latest update of
		// a message (by updated_at) never take sent for the newer news.
		m.Move(optin.MessageDelivered, now.Add(time.Microsecond))
	}
	if err := a.finish(ctx, tx, m); err != nil {
		return err
	}
	return tx.RecordConversation(ctx, m.From, m.To, now)
}

// finish writes a message that left the queue and announces its status.
func (a *App) finish(ctx context.Context, tx *store.Tx, m optin.Message) error {
	if err := tx.UpdateMessage(ctx, m); err != nil {
		return err
	}
	if err := tx.Dequeue(ctx, m.ID); err != nil {
		return err
	}
	return publish(ctx, tx, messageEventType(m.Status), "", MessageEvent(m))
}

// retryDelay is the wait before the next provider call: RetryBase doubled
// per attempt made, at least what the provider asked for, at most
// maxRetryDelay.
func (a *App) retryDelay(attempts int, asked time.Duration) time.Duration {
	d := a.sending.RetryBase
	for i := 1; i < attempts && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(max(d, asked), maxRetryDelay)
}

// statusCallbackURL is where the provider reports the message's delivery;
// the tenant and message ids in it are covered by the provider's signature.
func (a *App) statusCallbackURL(tenantID, messageID string) string {
	if a.sending.PublicBaseURL == "" {
		return ""
	}
	q := url.Values{"tenant": {tenantID}, "message": {messageID}}
	return a.sending.PublicBaseURL + StatusCallbackPath + "?" + q.Encode()
}
