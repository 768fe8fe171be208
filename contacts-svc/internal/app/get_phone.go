package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// LookupPhone returns the tenant's phone record with id (the phone_id of a
// contact): optin-svc turns a suppression's contact_phone_id into a number
// with it.
func (a *App) LookupPhone(ctx context.Context, scope Scope, id string) (contact.PhoneRecord, error) {
	if err := checkID(id); err != nil {
		return contact.PhoneRecord{}, err
	}
	var p contact.PhoneRecord
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		p, err = tx.Phone(ctx, id)
		return err
	})
	return p, err
}
