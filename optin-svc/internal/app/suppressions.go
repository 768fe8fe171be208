package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// SuppressionInput is the body of POST /suppression-list.
type SuppressionInput struct {
	ContactPhoneID string
	Reason         string
	Channel        string
}

// validate checks the input and applies the default channel (sms).
func (in *SuppressionInput) validate() error {
	problems := map[string][]string{}
	in.ContactPhoneID = strings.TrimSpace(in.ContactPhoneID)
	if in.ContactPhoneID == "" {
		problems["contact_phone_id"] = []string{"The contact phone id field is required."}
	} else if len(in.ContactPhoneID) > 64 {
		problems["contact_phone_id"] = []string{"The selected contact phone id is invalid."}
	}
	if in.Reason == "" {
		problems["reason"] = []string{"The reason field is required."}
	} else if !optin.ValidReason(in.Reason) {
		problems["reason"] = []string{"The selected reason is invalid (manual, bounce, complaint)."}
	}
	if in.Channel == "" {
		in.Channel = optin.ChannelSMS
	} else if !optin.ValidChannel(in.Channel) {
		problems["channel"] = []string{"The selected channel is invalid (sms, email)."}
	}
	if len(problems) > 0 {
		return &ValidationError{Fields: problems}
	}
	return nil
}

// ParseChannel reads the channel query parameter of the list and delete
// routes: absent means sms; anything but sms or email is a validation error.
func ParseChannel(v string, present bool) (string, error) {
	if !present {
		return optin.ChannelSMS, nil
	}
	if !optin.ValidChannel(v) {
		return "", invalid("channel", "The selected channel is invalid (sms, email).")
	}
	return v, nil
}

// AddSuppression suppresses the number of a contacts-svc phone record on a
// channel (source api). When the number is already suppressed on that
// channel it returns the existing entry with created false and changes
// nothing.
func (a *App) AddSuppression(ctx context.Context, scope Scope, in SuppressionInput) (optin.Suppression, bool, error) {
	if err := in.validate(); err != nil {
		return optin.Suppression{}, false, err
	}
	e164, err := a.contacts.PhoneNumber(ctx, scope.TenantID, scope.Token, in.ContactPhoneID)
	if errors.Is(err, optin.ErrUnknownPhone) {
		return optin.Suppression{}, false, invalid("contact_phone_id", "The selected contact phone id is invalid.")
	}
	if err != nil {
		return optin.Suppression{}, false, fmt.Errorf("resolving contact phone: %w", err)
	}
	entry := optin.Suppression{
		ID: ids.New(), Phone: e164, ContactPhoneID: in.ContactPhoneID,
		Reason: in.Reason, Channel: in.Channel, Source: optin.SourceAPI, CreatedAt: a.timestamp(),
	}
	var created bool
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		entry, created, err = a.suppress(ctx, tx, entry, scope.RequestID)
		return err
	})
	return entry, created, err
}

// suppress adds entry in tx and announces it when it is new.
func (a *App) suppress(ctx context.Context, tx *store.Tx, entry optin.Suppression, requestID string) (optin.Suppression, bool, error) {
	got, created, err := tx.AddSuppression(ctx, entry)
	if err != nil || !created {
		return got, created, err
	}
	return got, true, publish(ctx, tx, events.TypeSuppressionCreated, requestID, SuppressionEvent(got))
}

// ListSuppressions returns one page of a channel's entries, newest first,
// and the total.
func (a *App) ListSuppressions(ctx context.Context, scope Scope, channel string, page Page) ([]optin.Suppression, listtotal.Total, error) {
	var (
		list  []optin.Suppression
		total listtotal.Total
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListSuppressions(ctx, channel, page.Limit, page.Offset)
		return err
	})
	return list, total, err
}

// DeleteSuppression lifts the entry of a number (any format; read in the
// tenant's region) on a channel. A number that is not suppressed is
// ErrNotFound; an entry of the recipient's STOP is ErrSuppressionLocked.
func (a *App) DeleteSuppression(ctx context.Context, scope Scope, number, channel string) error {
	e164, err := phone.Normalize(number, scope.Region)
	if err != nil {
		return optin.ErrNotFound
	}
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		entry, err := tx.Suppression(ctx, e164, channel, true)
		if err != nil {
			return err
		}
		if err := entry.CanDeleteThroughAPI(); err != nil {
			return err
		}
		return a.unsuppress(ctx, tx, entry, scope.RequestID)
	})
}

// DeleteSuppressionByID lifts the entry with id as DeleteSuppression lifts
// it by number: for the dashboard, whose list shows only the last four
// digits of the numbers. An unknown id is ErrNotFound.
func (a *App) DeleteSuppressionByID(ctx context.Context, scope Scope, id string) error {
	if !ids.Valid(id) {
		return optin.ErrNotFound
	}
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		entry, err := tx.SuppressionByID(ctx, id)
		if err != nil {
			return err
		}
		if err := entry.CanDeleteThroughAPI(); err != nil {
			return err
		}
		return a.unsuppress(ctx, tx, entry, scope.RequestID)
	})
}

// unsuppress deletes entry in tx and announces it.
func (a *App) unsuppress(ctx context.Context, tx *store.Tx, entry optin.Suppression, requestID string) error {
	if err := tx.DeleteSuppression(ctx, entry.ID); err != nil {
		return err
	}
	return publish(ctx, tx, events.TypeSuppressionDeleted, requestID, SuppressionEvent(entry))
}

// SuppressionEvent renders an entry as the data of suppression.* events.
func SuppressionEvent(s optin.Suppression) events.Suppression {
	var phoneID *string
	if s.ContactPhoneID != "" {
		id := s.ContactPhoneID
		phoneID = &id
	}
	return events.Suppression{
		ID: s.ID, ContactPhoneID: phoneID, PhoneLast4: phone.Last4(s.Phone),
		Reason: s.Reason, Channel: s.Channel, Source: s.Source, CreatedAt: s.CreatedAt.UTC(),
	}
}
