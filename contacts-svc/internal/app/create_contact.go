package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// CreateContact validates in, links the contact to the canonical record of
// its phone and stores it, emitting contact.created. A phone or external id
// held by a live contact is a *contact.ValidationError naming the field.
func (a *App) CreateContact(ctx context.Context, scope Scope, in contact.Input) (contact.Contact, error) {
	var c contact.Contact
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		c, err = a.create(ctx, tx, scope, in)
		return err
	})
	return c, err
}

// create is CreateContact inside a transaction (shared with FindOrCreate).
func (a *App) create(ctx context.Context, tx *store.Tx, scope Scope, in contact.Input) (contact.Contact, error) {
	r, err := rules(ctx, tx, scope)
	if err != nil {
		return contact.Contact{}, err
	}
	f, err := r.Validate(in)
	if err != nil {
		return contact.Contact{}, err
	}
	now := a.timestamp()
	c := contact.Contact{
		ID: ids.NewAt(now), TenantID: scope.TenantID, Fields: f, CreatedAt: now, UpdatedAt: now,
	}
	// The phone record, the check that no live contact holds the phone or
	// the external id, and the insert are one statement.
	id, err := tx.InsertNewContact(ctx, c)
	if err != nil {
		return contact.Contact{}, err
	}
	if err := identityTaken(id, ""); err != nil {
		return contact.Contact{}, err
	}
	c.PhoneID = id.PhoneID
	return c, publish(ctx, tx, c, events.TypeContactCreated)
}
