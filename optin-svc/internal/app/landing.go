package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// Landing is what the landing page of a code shows.
type Landing struct {
	TenantID   string
	TenantName string
	// Region is where national numbers are read (the tenant's region).
	Region string
	Code   optin.Code
}

// OpenLanding returns the landing page of a public code, counting a scan
// when count is set. A code that does not exist, is not live, or belongs
// to a tenant whose opt-in capability is off is optin.ErrNotFound.
func (a *App) OpenLanding(ctx context.Context, publicCode string, count bool) (Landing, error) {
	tenantID, codeID, err := a.store.LandingCode(ctx, publicCode)
	if err != nil {
		return Landing{}, err
	}
	t, err := a.tenant(ctx, tenantID)
	if err != nil {
		return Landing{}, err
	}
	if !t.OptIn {
		return Landing{}, optin.ErrNotFound
	}
	l := Landing{TenantID: tenantID, TenantName: t.Name, Region: a.region(t)}
	err = a.store.Write(ctx, idempotency.Tx{}, tenantID, func(tx *store.Tx) error {
		if l.Code, err = tx.Code(ctx, codeID); err != nil {
			return err
		}
		if !l.Code.IsLive {
			return optin.ErrNotFound
		}
		if !count {
			return nil
		}
		l.Code.ScanCount++
		return tx.CountScan(ctx, codeID)
	})
	return l, err
}

// SubscribeInput is the landing page form.
type SubscribeInput struct {
	Phone   string
	Consent string
}

// Subscription is the outcome of a landing page consent.
type Subscription struct {
	Landing Landing
	// Status is the consent's status: pending (a confirmation SMS asks for
	// YES) or confirmed.
	Status string
	// Suppressed reports that the number replied STOP earlier: no SMS
	// reaches it until it replies START.
	Suppressed bool
}

// Subscribe takes a consent on a code's landing page: it finds or creates
// the contact of the number (contacts-svc), then records the consent:
// pending with a confirmation SMS for a double opt-in code, else confirmed.
// A number with a live consent keeps it (no second consent).
func (a *App) Subscribe(ctx context.Context, publicCode string, in SubscribeInput) (Subscription, error) {
	l, err := a.OpenLanding(ctx, publicCode, false)
	if err != nil {
		return Subscription{}, err
	}
	t, err := a.tenant(ctx, l.TenantID)
	if err != nil {
		return Subscription{}, err
	}
	problems := map[string][]string{}
	e164, err := phone.Normalize(in.Phone, a.region(t))
	if err != nil {
		problems["phone"] = []string{"Enter a valid mobile phone number."}
	}
	if in.Consent != "yes" {
		problems["consent"] = []string{"Tick the box to agree to receive text messages."}
	}
	if len(problems) > 0 {
		return Subscription{}, &ValidationError{Fields: problems}
	}
	contactID, err := a.contacts.FindOrCreateByPhone(ctx, l.TenantID, "", e164)
	if err != nil {
		return Subscription{}, fmt.Errorf("finding the contact of the number: %w", err)
	}
	sub := Subscription{Landing: l}
	queued := false
	err = a.store.Write(ctx, idempotency.Tx{}, l.TenantID, func(tx *store.Tx) error {
		var err error
		sub, queued, err = a.subscribe(ctx, tx, l, t.Name, contactID, e164)
		return err
	})
	if queued {
		a.Wake()
	}
	return sub, err
}

// subscribe records the landing page consent in tx.
func (a *App) subscribe(ctx context.Context, tx *store.Tx, l Landing, tenantName, contactID, e164 string) (Subscription, bool, error) {
	sub := Subscription{Landing: l}
	var err error
	if sub.Suppressed, err = tx.IsSuppressed(ctx, e164, optin.ChannelSMS); err != nil {
		return sub, false, err
	}
	live, err := tx.LiveConsents(ctx, e164)
	if err != nil {
		return sub, false, err
	}
	if len(live) > 0 {
		sub.Status = live[0].Status
		return sub, false, nil
	}
	now := a.timestamp()
	c := optin.Consent{ID: ids.NewAt(now), ContactID: contactID, Phone: e164, OptInCodeID: l.Code.ID,
		Status: optin.ConsentConfirmed, Channel: optin.ChannelSMS, Source: optin.ConsentFromLandingPage,
		ConsentedAt: now, ConfirmedAt: &now, CreatedAt: now, UpdatedAt: now}
	if l.Code.DoubleOptIn {
		c.Status, c.ConfirmedAt = optin.ConsentPending, nil
	}
	if err := tx.InsertConsent(ctx, c); errors.Is(err, store.ErrLiveConsent) {
		sub.Status = optin.ConsentPending // a concurrent submission won; it holds the consent
		return sub, false, nil
	} else if err != nil {
		return sub, false, err
	}
	sub.Status = c.Status
	if !l.Code.DoubleOptIn {
		return sub, false, a.confirmed(ctx, tx, c)
	}
	if err := publish(ctx, tx, events.TypeConsentRequested, "", ConsentEvent(c)); err != nil {
		return sub, false, err
	}
	queued, err := a.recordMessages(ctx, tx, []MessageRequest{{
		NotificationID: "opt_in_confirmation:" + c.ID, Kind: events.KindOptInConfirm, ContactID: contactID,
		To: e164, Body: confirmationText(tenantName),
	}})
	return sub, err == nil && queued > 0, err
}

// confirmed counts a confirmed consent on its code and announces it.
func (a *App) confirmed(ctx context.Context, tx *store.Tx, c optin.Consent) error {
	if c.OptInCodeID != "" {
		if err := tx.CountOptIn(ctx, c.OptInCodeID); err != nil {
			return err
		}
	}
	return publish(ctx, tx, events.TypeOptInConfirmed, "", ConsentEvent(c))
}

// confirmationText is the double opt-in SMS.
func confirmationText(tenantName string) string {
	return senderPrefix(tenantName) + "Reply YES to confirm you want to receive text messages from us. " +
		"Msg & data rates may apply. Reply HELP for help, STOP to opt out."
}

// senderPrefix names the tenant at the start of an SMS ("Acme: ").
func senderPrefix(tenantName string) string {
	if n := strings.TrimSpace(tenantName); n != "" {
		return n + ": "
	}
	return ""
}
