package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/events"
)

// RestoreContact brings a soft-deleted contact back, emitting
// contact.restored and contact.updated. A live contact is a
// *contact.TransitionError (active -> active); a phone or external id taken
// by a live contact meanwhile is a *contact.ValidationError naming it.
func (a *App) RestoreContact(ctx context.Context, scope Scope, id string) (contact.Contact, error) {
	if err := checkID(id); err != nil {
		return contact.Contact{}, err
	}
	var c contact.Contact
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		if c, err = tx.Contact(ctx, id, store.Lookup{WithTrashed: true, ForUpdate: true}); err != nil {
			return err
		}
		if _, err := contact.Transition(c.State(), contact.ActionRestore); err != nil {
			return err
		}
		if _, err := claimIdentity(ctx, tx, c.Fields, c.ID); err != nil {
			return err
		}
		c.DeletedAt, c.UpdatedAt = nil, a.timestamp()
		if err := tx.SaveContact(ctx, c); err != nil {
			return err
		}
		return publish(ctx, tx, c, events.TypeContactRestored, events.TypeContactUpdated)
	})
	return c, err
}
