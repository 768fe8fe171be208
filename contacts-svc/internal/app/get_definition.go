package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// GetDefinition returns one contact field definition.
func (a *App) GetDefinition(ctx context.Context, scope Scope, id string) (contact.Definition, error) {
	if err := checkID(id); err != nil {
		return contact.Definition{}, err
	}
	var d contact.Definition
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		d, err = tx.Definition(ctx, id, false)
		return err
	})
	return d, err
}

// ListDefinitions returns a page of definitions, newest first, and the total.
func (a *App) ListDefinitions(ctx context.Context, scope Scope, p Page) ([]contact.Definition, int, error) {
	var (
		list  []contact.Definition
		total int
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.Definitions(ctx, p.Limit, p.Offset)
		return err
	})
	return list, total, err
}
