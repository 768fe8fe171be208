package app

import (
	"context"

	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// ContactOptIn is a contact's opt-in status and consents (the single
// contact read of contacts-svc shows them).
type ContactOptIn struct {
	Status   string
	Consents []optin.Consent
}

// ContactOptIn returns the opt-in status of a contact and its number (any
// format; read in the tenant's region; "" when unknown) with the consents
// of either, newest first (contract section 10). It reads in one round
// trip (store.ContactStanding): every contacts-svc single read asks.
func (a *App) ContactOptIn(ctx context.Context, scope Scope, contactID, number string) (ContactOptIn, error) {
	e164 := ""
	if number != "" {
		if n, err := phone.Normalize(number, scope.Region); err == nil {
			e164 = n
		}
	}
	st, err := a.store.ContactStanding(ctx, scope.TenantID, contactID, e164)
	if err != nil {
		return ContactOptIn{}, err
	}
	out := ContactOptIn{Status: optin.ContactStatus(st.Suppressed, st.Consents), Consents: []optin.Consent{}}
	out.Consents = append(out.Consents, st.Consents...)
	return out, nil
}
