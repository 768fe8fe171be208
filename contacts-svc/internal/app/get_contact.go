package app

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
)

// GetContact returns a contact and its opt-in standing (a single read). A
// soft-deleted contact is found only withTrashed.
func (a *App) GetContact(ctx context.Context, scope Scope, id string, withTrashed bool) (contact.Contact, contact.OptIn, error) {
	c, err := a.LookupContact(ctx, scope, id, withTrashed)
	if err != nil {
		return contact.Contact{}, contact.OptIn{}, err
	}
	o, err := a.optIns.OptIn(ctx, scope.TenantID, c)
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
	return a.store.ReadContact(ctx, scope.TenantID, id, withTrashed)
}
