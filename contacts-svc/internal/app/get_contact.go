package app

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// GetContact returns a contact and its opt-in standing (a single read). A
// soft-deleted contact is found only withTrashed.
func (a *App) GetContact(ctx context.Context, scope Scope, id string, withTrashed bool) (contact.Contact, contact.OptIn, error) {
	c, err := a.LookupContact(ctx, scope, id, withTrashed)
	if err != nil {
		return contact.Contact{}, contact.OptIn{}, err
	}
	o, err := a.optIns.OptIn(ctx, scope.TenantID, c.ID)
	if err != nil {
		return contact.Contact{}, contact.OptIn{}, fmt.Errorf("reading opt-in status: %w", err)
	}
	return c, o, nil
}

// LookupContact returns a contact without its opt-in standing; withTrashed
// finds soft-deleted contacts too.
func (a *App) LookupContact(ctx context.Context, scope Scope, id string, withTrashed bool) (contact.Contact, error) {
	if err := checkID(id); err != nil {
		return contact.Contact{}, err
	}
	var c contact.Contact
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		c, err = tx.Contact(ctx, id, store.Lookup{WithTrashed: withTrashed})
		return err
	})
	return c, err
}
