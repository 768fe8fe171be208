package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
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
}

// reasonUnavailable is the failure reason of a message whose notification
// transactions-svc no longer has (expired after 7 days, or unknown).
const reasonUnavailable = "notification_unavailable"

// RequestNotification handles notification.requested: it reads the
// notification's number and text from transactions-svc (the event carries
// ids only), records the message (once per notification id) and queues it
// for the dispatcher, or records it suppressed or failed when it cannot be
// sent. An event of an earlier producer that still carries to and body is
// used as it is. When transactions-svc cannot answer, it returns the error
// so the event is retried; when it no longer has the notification, the
// message is recorded failed (notification_unavailable).
func (a *App) RequestNotification(ctx context.Context, env events.Envelope) error {
	var n events.NotificationRequested
	if err := env.Decode(&n); err != nil {
		a.log.Error("skipping an undecodable notification", "event_id", env.ID, "err", err)
		return nil
	}
	req := MessageRequest{NotificationID: n.NotificationID, Kind: n.Kind, TransactionID: n.TransactionID,
		ContactID: n.ContactID, To: n.To, Body: n.Body}
	if req.NotificationID == "" {
		req.NotificationID = env.ID
	}
	if n.To == "" && n.Body == "" && n.NotificationID != "" {
		if err := a.fetchNotification(ctx, env.TenantID, &req); err != nil {
			return err
		}
	}
	queued := false
	err := a.store.Write(ctx, idempotency.Tx{}, env.TenantID, func(tx *store.Tx) error {
		first, err := tx.Claim(ctx, consumerName, env.ID)
		if err != nil || !first {
			return err
		}
		m, created, err := a.queueMessage(ctx, tx, req, env.RequestID)
		queued = created && m.Status == optin.MessageQueued
		return err
	})
	if err != nil {
		return fmt.Errorf("recording notification %s: %w", req.NotificationID, err)
	}
	if queued {
		a.Wake()
	}
	return nil
}

// queueMessage records the message of req in tx: queued for the
// dispatcher, suppressed when the number is on the sms suppression list,
// failed when the number or body cannot be sent. A second request with the
// same notification id changes nothing (created false).
func (a *App) queueMessage(ctx context.Context, tx *store.Tx, req MessageRequest, requestID string) (optin.Message, bool, error) {
	now := a.timestamp()
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
	if m.Status == optin.MessageQueued {
		suppressed, err := tx.IsSuppressed(ctx, m.To, optin.ChannelSMS)
		if err != nil {
			return optin.Message{}, false, err
		}
		if suppressed {
			m.Move(optin.MessageSuppressed, now)
		}
	}
	created, err := tx.InsertMessage(ctx, m)
	if err != nil || !created {
		return m, false, err
	}
	if m.Status == optin.MessageQueued {
		if err := tx.Enqueue(ctx, m.ID, now); err != nil {
			return m, true, err
		}
	}
	return m, true, publish(ctx, tx, messageEventType(m.Status), requestID, MessageEvent(m))
}

// fetchNotification fills req's number and text from transactions-svc, or
// marks it Unavailable when transactions-svc does not have it. Any other
// failure is returned: the event is retried.
func (a *App) fetchNotification(ctx context.Context, tenantID string, req *MessageRequest) error {
	if a.transactions == nil {
		return fmt.Errorf("reading notification %s: no transactions-svc client", req.NotificationID)
	}
	to, body, err := a.transactions.Notification(ctx, tenantID, req.NotificationID)
	switch {
	case errors.Is(err, optin.ErrNotFound):
		a.log.Warn("notification unavailable at transactions-svc; recording the message failed",
			"tenant_id", tenantID, "notification_id", req.NotificationID)
		req.Unavailable = true
		return nil
	case err != nil:
		return fmt.Errorf("reading notification %s: %w", req.NotificationID, err)
	}
	req.To, req.Body = to, body
	return nil
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
