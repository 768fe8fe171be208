package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// InboundSMS is an SMS a person sent to a sender number.
type InboundSMS struct {
	// MessageSID is the provider's id; a second delivery of one id
	// changes nothing again.
	MessageSID string
	From, To   string
	Body       string
}

// ReceiveSMS handles an inbound SMS and returns the reply to send back ("" for
// none). STOP and its synonyms revoke the number's consents and suppress
// it (source inbound_stop); START lifts only such an entry; YES confirms a
// pending consent, or records a confirmed one; HELP answers. A number that
// matches no tenant is optin.ErrNoTenant.
func (a *App) ReceiveSMS(ctx context.Context, in InboundSMS) (string, error) {
	from, err := phone.Normalize(in.From, "")
	if err != nil {
		return "", optin.ErrNoTenant
	}
	to, err := phone.Normalize(in.To, "")
	if err != nil {
		return "", optin.ErrNoTenant
	}
	t, err := a.inboundTenant(ctx, from, to)
	if err != nil {
		return "", err
	}
	keyword := optin.ParseKeyword(in.Body)
	contactID := ""
	if keyword == optin.KeywordYes {
		if contactID, err = a.contacts.FindOrCreateByPhone(ctx, t.ID, "", from); err != nil {
			return "", fmt.Errorf("finding the contact of the number: %w", err)
		}
	}
	reply := ""
	err = a.store.Write(ctx, idempotency.Tx{}, t.ID, func(tx *store.Tx) error {
		now := a.timestamp()
		first, err := tx.RecordInbound(ctx, ids.NewAt(now), in.MessageSID, from, keyword, now)
		if err != nil {
			return err
		}
		reply, err = a.applyKeyword(ctx, tx, keyword, from, contactID, t.Name, first)
		return err
	})
	return reply, err
}

// applyKeyword makes the change a keyword asks for (unless apply is false:
// a redelivery, which only gets the reply again) and returns the reply.
func (a *App) applyKeyword(ctx context.Context, tx *store.Tx, keyword, from, contactID, tenantName string, apply bool) (string, error) {
	prefix := senderPrefix(tenantName)
	switch keyword {
	case optin.KeywordStop:
		if apply {
			if err := a.optOut(ctx, tx, from); err != nil {
				return "", err
			}
		}
		return prefix + "You are unsubscribed and will receive no more messages. Reply START to resubscribe.", nil
	case optin.KeywordStart:
		if apply {
			if err := a.optBackIn(ctx, tx, from); err != nil {
				return "", err
			}
		}
		return prefix + "You are resubscribed. Reply HELP for help, STOP to opt out.", nil
	case optin.KeywordYes:
		if apply {
			if err := a.confirmByReply(ctx, tx, from, contactID); err != nil {
				return "", err
			}
		}
		return prefix + "Thank you, you are subscribed. Msg & data rates may apply. Reply HELP for help, STOP to opt out.", nil
	case optin.KeywordHelp:
		return prefix + "Reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.", nil
	}
	return "", nil
}

// optOut revokes the number's live consents and suppresses it on sms as
// the recipient's STOP. A number the tenant suppressed itself stays so.
func (a *App) optOut(ctx context.Context, tx *store.Tx, from string) error {
	live, err := tx.LiveConsents(ctx, from)
	if err != nil {
		return err
	}
	now := a.timestamp()
	for _, c := range live {
		c.Revoke(now)
		if err := tx.UpdateConsent(ctx, c); err != nil {
			return err
		}
		if err := publish(ctx, tx, events.TypeOptInRevoked, "", ConsentEvent(c)); err != nil {
			return err
		}
	}
	return a.holdSuppression(ctx, tx, from, now)
}

// holdSuppressionTries bounds holdSuppression's retries: each one follows
// an entry deleted between two statements of the STOP's transaction.
const holdSuppressionTries = 3

// holdSuppression suppresses the number on sms for the recipient's STOP:
// a new inbound_stop entry, or, when the API or a bounce suppressed it
// already, that entry marked as held by the STOP (stopped_at), so that the
// API can no longer lift it (contract section 10: only the recipient's
// START does).
func (a *App) holdSuppression(ctx context.Context, tx *store.Tx, from string, now time.Time) error {
	for range holdSuppressionTries {
		entry, created, err := a.suppress(ctx, tx, optin.Suppression{ID: ids.NewAt(now), Phone: from,
			Reason: optin.ReasonManual, Channel: optin.ChannelSMS, Source: optin.SourceInboundStop, CreatedAt: now}, "")
		if err != nil || created || entry.HeldByRecipient() {
			return err
		}
		marked, err := tx.SetSuppressionStopped(ctx, entry.ID, &now)
		if err != nil || marked {
			return err
		}
		// The entry was lifted after the insert saw it: insert again.
	}
	return fmt.Errorf("suppressing %s after STOP: the entry keeps changing", phone.Last4(from))
}

// optBackIn undoes the recipient's STOP: it lifts an inbound_stop entry,
// and clears the STOP's hold on an entry of the API or of a bounce, which
// stays.
func (a *App) optBackIn(ctx context.Context, tx *store.Tx, from string) error {
	entry, err := tx.Suppression(ctx, from, optin.ChannelSMS, true)
	if err != nil {
		if errors.Is(err, optin.ErrNotFound) {
			return nil
		}
		return err
	}
	if entry.Source == optin.SourceInboundStop {
		return a.unsuppress(ctx, tx, entry, "")
	}
	if entry.StoppedAt == nil {
		return nil
	}
	_, err = tx.SetSuppressionStopped(ctx, entry.ID, nil)
	return err
}

// confirmByReply confirms the number's pending consents; a number without
// a live consent gets a confirmed one (given by this reply).
func (a *App) confirmByReply(ctx context.Context, tx *store.Tx, from, contactID string) error {
	live, err := tx.LiveConsents(ctx, from)
	if err != nil {
		return err
	}
	now := a.timestamp()
	for _, c := range live {
		if !c.Confirm(now) {
			continue
		}
		if err := tx.UpdateConsent(ctx, c); err != nil {
			return err
		}
		if err := a.confirmed(ctx, tx, c); err != nil {
			return err
		}
	}
	if len(live) > 0 {
		return nil
	}
	c := optin.Consent{ID: ids.NewAt(now), ContactID: contactID, Phone: from, Status: optin.ConsentConfirmed,
		Channel: optin.ChannelSMS, Source: optin.ConsentFromInboundSMS, ConsentedAt: now, ConfirmedAt: &now,
		CreatedAt: now, UpdatedAt: now}
	if err := tx.InsertConsent(ctx, c); err != nil {
		return err
	}
	return a.confirmed(ctx, tx, c)
}
