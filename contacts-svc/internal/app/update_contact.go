package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/events"
)

// ReplaceContact applies a PUT: every mutable field is replaced by in (the
// phone is still required). It emits contact.updated.
func (a *App) ReplaceContact(ctx context.Context, scope Scope, id string, in contact.Input) (contact.Contact, error) {
	return a.update(ctx, scope, id, func(r contact.Rules, _ contact.Fields) (contact.Fields, error) {
		return r.Validate(in)
	})
}

// PatchContact applies a PATCH: only the fields p sends change. It emits
// contact.updated.
func (a *App) PatchContact(ctx context.Context, scope Scope, id string, p contact.Patch) (contact.Contact, error) {
	return a.update(ctx, scope, id, func(r contact.Rules, cur contact.Fields) (contact.Fields, error) {
		return r.ApplyPatch(cur, p)
	})
}

// update loads the live contact locked, computes its new fields with change,
// checks the phone and external id are not another live contact's, and
// saves it.
func (a *App) update(ctx context.Context, scope Scope, id string,
	change func(contact.Rules, contact.Fields) (contact.Fields, error)) (contact.Contact, error) {
	if err := checkID(id); err != nil {
		return contact.Contact{}, err
	}
	var c contact.Contact
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		if c, err = tx.Contact(ctx, id, store.Lookup{ForUpdate: true}); err != nil {
			return err
		}
		r, err := rules(ctx, tx, scope)
		if err != nil {
			return err
		}
		if c.Fields, err = change(r, c.Fields); err != nil {
			return err
		}
		if c.PhoneID, err = claimIdentity(ctx, tx, c.Fields, c.ID); err != nil {
			return err
		}
		c.UpdatedAt = a.timestamp()
		if err := tx.SaveContact(ctx, c); err != nil {
			return err
		}
		return publish(ctx, tx, c, events.TypeContactUpdated)
	})
	return c, err
}
