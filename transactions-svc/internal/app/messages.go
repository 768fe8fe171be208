package app

import (
	"context"
	"strings"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// MessagesConsumer names the consumer of message.* events in the inbox.
const MessagesConsumer = "transactions-svc.messages"

// ApplyMessage keeps a transaction's latest_message, and the state of the
// notification the message was sent for, from a message.* event of
// optin-svc. Redeliveries are skipped (inbox), and news older than what the
// transaction shows is ignored. Events about no transaction of this service
// need nothing.
func (a *App) ApplyMessage(ctx context.Context, env events.Envelope) error {
	if !strings.HasPrefix(env.Type, "message.") || env.TenantID == "" {
		return nil
	}
	var m events.Message
	if err := env.Decode(&m); err != nil {
		return nil // a malformed event cannot become well formed by retrying
	}
	if m.TransactionID == "" || checkID(m.TransactionID) != nil {
		return nil
	}
	return a.store.Write(ctx, idempotency.Tx{}, env.TenantID, func(tx *store.Tx) error {
		first, err := tx.ClaimEvent(ctx, MessagesConsumer, env.ID)
		if err != nil || !first {
			return err
		}
		_, err = tx.SetLatestMessage(ctx, m.TransactionID, store.LatestMessage{
			ID: m.ID, Status: m.Status, Channel: m.Channel, SentAt: m.SentAt, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		})
		if err != nil || m.NotificationID == "" {
			return err
		}
		// The message's own state, shown with the item's messages.
		return tx.SetMessageState(ctx, m.NotificationID, m.Status, m.SentAt, m.UpdatedAt)
	})
}
