package app

import (
	"context"
	"errors"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// StatusReport is a provider's delivery report (Twilio's status callback).
type StatusReport struct {
	TenantID  string
	MessageID string
	// ProviderMessageID must match the message's (Twilio's MessageSid).
	ProviderMessageID string
	// Status is the provider's status: delivered, undelivered and failed
	// move the message; queued, sending and sent change nothing.
	Status    string
	ErrorCode string
}

// RecordStatus applies a delivery report: delivered, or failed (and the
// number suppressed when the provider says it cannot receive SMS). A
// report for an unknown message, of another provider message, or that
// would move the message back is ignored.
func (a *App) RecordStatus(ctx context.Context, r StatusReport) error {
	a.metrics.reported(a.provider.Name(), r.Status)
	var to string
	switch r.Status {
	case "delivered":
		to = optin.MessageDelivered
	case "undelivered", "failed":
		to = optin.MessageFailed
	default:
		return nil
	}
	if !ids.Valid(r.TenantID) || !ids.Valid(r.MessageID) {
		return nil
	}
	return a.store.Write(ctx, idempotency.Tx{}, r.TenantID, func(tx *store.Tx) error {
		m, err := tx.Message(ctx, r.MessageID, true)
		if errors.Is(err, optin.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if m.ProviderMessageID != r.ProviderMessageID || !m.Move(to, a.timestamp()) {
			return nil
		}
		perr := &sms.Error{Code: r.ErrorCode}
		if to == optin.MessageFailed {
			m.FailureReason = "delivery failed"
			if r.ErrorCode != "" {
				m.FailureReason = "provider error " + r.ErrorCode
			}
		}
		if err := tx.UpdateMessage(ctx, m); err != nil {
			return err
		}
		if err := publish(ctx, tx, messageEventType(m.Status), "", MessageEvent(m)); err != nil {
			return err
		}
		if to == optin.MessageFailed {
			return a.afterPermanentFailure(ctx, tx, m, perr)
		}
		return nil
	})
}
