package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// maxBody bounds an SMS body (ten concatenated segments).
const maxBody = 1600

// consumerName is the inbox name of optin-svc's event consumer.
const consumerName = "optin-svc"

// MessageRequest asks for one SMS.
type MessageRequest struct {
	// NotificationID makes the request idempotent within the tenant.
	NotificationID string
	Kind           string
	TransactionID  string
	ContactID      string
	To             string
	Body           string
	// Unavailable: the notification's number and text could not be read
	// (transactions-svc no longer has it); the message is recorded failed.
	Unavailable bool
	// RequestID travels into the message's event ("": the one of ctx).
	RequestID string
}

// reasonUnavailable is the failure reason of a message whose notification
// transactions-svc no longer has (expired after 7 days, or unknown).
const reasonUnavailable = "notification_unavailable"

// recordMessages records the messages of reqs in tx, one per notification
// id (a later request of the same notification id, in reqs or before,
// changes nothing): queued for the dispatcher, suppressed when the number
// is on the sms suppression list, failed when the number or body cannot be
// sent; each stored message's message.* event goes to the outbox. It
// returns how many it queued. A few statements whatever the number of
// requests: the suppression check, the insert, the queue and the outbox.
func (a *App) recordMessages(ctx context.Context, tx *store.Tx, reqs []MessageRequest) (int, error) {
	now := a.timestamp()
	msgs := make([]optin.Message, 0, len(reqs))
	requestIDs := make(map[string]string, len(reqs))
	var numbers []string
	for _, req := range reqs {
		if _, dup := requestIDs[req.NotificationID]; dup {
			continue
		}
		m := a.newMessage(req, now)
		requestIDs[m.NotificationID] = req.RequestID
		if m.Status == optin.MessageQueued {
			numbers = append(numbers, m.To)
		}
		msgs = append(msgs, m)
	}
	suppressed, err := tx.SuppressedAmong(ctx, numbers, optin.ChannelSMS)
	if err != nil {
		return 0, err
	}
	for i := range msgs {
		if msgs[i].Status == optin.MessageQueued && suppressed[msgs[i].To] {
			msgs[i].Move(optin.MessageSuppressed, now)
		}
	}
	stored, err := tx.InsertMessages(ctx, msgs)
	if err != nil {
		return 0, err
	}
	var queue []store.Due
	envs := make([]events.Envelope, 0, len(stored))
	for _, m := range msgs {
		if !stored[m.ID] {
			continue
		}
		if m.Status == optin.MessageQueued {
			queue = append(queue, store.Due{MessageID: m.ID, At: now})
		}
		env, err := newEvent(ctx, tx.TenantID(), messageEventType(m.Status), requestIDs[m.NotificationID], MessageEvent(m))
		if err != nil {
			return 0, err
		}
		envs = append(envs, env)
	}
	if err := tx.EnqueueMessages(ctx, queue); err != nil {
		return 0, err
	}
	return len(queue), tx.PublishAll(ctx, envs)
}

// newMessage is the message of req at now: queued, or failed when the
// number or body cannot be sent or the notification is unavailable.
func (a *App) newMessage(req MessageRequest, now time.Time) optin.Message {
	m := optin.Message{
		ID: ids.NewAt(now), NotificationID: req.NotificationID, Kind: req.Kind, TransactionID: req.TransactionID,
		ContactID: req.ContactID, Body: req.Body, Status: optin.MessageQueued, Provider: a.provider.Name(),
		CreatedAt: now, UpdatedAt: now,
	}
	if m.Kind == "" {
		m.Kind = "notification"
	}
	to, err := phone.Normalize(req.To, "")
	m.To = to
	switch {
	case req.Unavailable:
		m.To = ""
		m.Move(optin.MessageFailed, now)
		m.FailureReason = reasonUnavailable
	case err != nil:
		m.To = strings.TrimSpace(req.To)
		m.Move(optin.MessageFailed, now)
		m.FailureReason = "invalid_number"
	case strings.TrimSpace(req.Body) == "" || len(req.Body) > maxBody:
		m.Move(optin.MessageFailed, now)
		m.FailureReason = "invalid_body"
	}
	return m
}

// Wake tells the dispatcher that a message is due.
func (a *App) Wake() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// messageEventType is the event of a message's status.
func messageEventType(status string) string {
	switch status {
	case optin.MessageSent:
		return events.TypeMessageSent
	case optin.MessageDelivered:
		return events.TypeMessageDelivered
	case optin.MessageSuppressed:
		return events.TypeMessageSuppressed
	case optin.MessageQueued:
		return events.TypeMessageQueued
	default:
		return events.TypeMessageFailed
	}
}

// MessageEvent renders a message as the data of message.* events.
func MessageEvent(m optin.Message) events.Message {
	return events.Message{
		ID: m.ID, NotificationID: m.NotificationID, TransactionID: m.TransactionID, ContactID: m.ContactID,
		Channel: optin.ChannelSMS, Status: m.Status, ToLast4: phone.Last4(m.To), SentAt: m.SentAt,
		FailureReason: m.FailureReason, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
}

// ListMessages returns one page of a tenant's messages (only those to the
// number when to is not empty), newest first, and the total: the operator
// plane's view of what was sent, the sink's outbox.
func (a *App) ListMessages(ctx context.Context, tenantID, to string, page Page) ([]optin.Message, listtotal.Total, error) {
	if to != "" {
		e164, err := phone.Normalize(to, "")
		if err != nil {
			return nil, listtotal.Total{}, invalid("to", "The to field must be a phone number in E.164 form.")
		}
		to = e164
	}
	var (
		list  []optin.Message
		total listtotal.Total
	)
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListMessages(ctx, to, page.Limit, page.Offset)
		return err
	})
	if errors.Is(err, optin.ErrNotFound) {
		return nil, listtotal.Total{}, nil
	}
	return list, total, err
}
