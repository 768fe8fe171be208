package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/ids"
)

// CreateDefinition adds a contact field definition; a key the tenant has
// already is contact.ErrKeyTaken.
func (a *App) CreateDefinition(ctx context.Context, scope Scope, in contact.DefinitionInput) (contact.Definition, error) {
	d, err := contact.NewDefinition(in)
	if err != nil {
		return contact.Definition{}, err
	}
	now := a.timestamp()
	d.ID, d.TenantID, d.CreatedAt, d.UpdatedAt = ids.NewAt(now), scope.TenantID, now, now
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		return tx.InsertDefinition(ctx, d)
	})
	return d, err
}
