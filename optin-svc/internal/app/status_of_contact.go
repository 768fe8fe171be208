package app

import (
	"context"

	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// ContactOptIn is a contact's opt-in status and consents (the single
// contact read of contacts-svc shows them).
type ContactOptIn struct {
	Status   string
	Consents []optin.Consent
}

// ContactOptIn returns the opt-in status of a contact and its number (any
// format; read in the tenant's region; "" when unknown) with the consents
// of either, newest first (contract section 10).
func (a *App) ContactOptIn(ctx context.Context, scope Scope, contactID, number string) (ContactOptIn, error) {
	e164 := ""
	if number != "" {
		if n, err := phone.Normalize(number, scope.Region); err == nil {
			e164 = n
		}
	}
	out := ContactOptIn{Consents: []optin.Consent{}}
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		suppressed := false
		if e164 != "" {
			var err error
			if suppressed, err = tx.IsSuppressed(ctx, e164, optin.ChannelSMS); err != nil {
				return err
			}
		}
		list, err := tx.ConsentsOf(ctx, contactID, e164)
		if err != nil {
			return err
		}
		out.Consents = append(out.Consents, list...)
		out.Status = optin.ContactStatus(suppressed, list)
		return nil
	})
	return out, err
}
