package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/events"
)

// DeleteContact soft-deletes a live contact, emitting contact.deleted and
// contact.updated. Its phone and external id become free for other contacts.
func (a *App) DeleteContact(ctx context.Context, scope Scope, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		c, err := tx.Contact(ctx, id, store.Lookup{ForUpdate: true})
		if err != nil {
			return err
		}
		if _, err := contact.Transition(c.State(), contact.ActionDelete); err != nil {
			return err
		}
		now := a.timestamp()
		c.DeletedAt, c.UpdatedAt = &now, now
		if err := tx.SaveContact(ctx, c); err != nil {
			return err
		}
		return publish(ctx, tx, c, events.TypeContactDeleted, events.TypeContactUpdated)
	})
}
