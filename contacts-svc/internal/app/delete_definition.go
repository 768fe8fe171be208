package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// DeleteDefinition removes a definition. Contacts keep the values they
// stored under its key, but a later write of their custom_fields that still
// carries the key is refused as undefined.
func (a *App) DeleteDefinition(ctx context.Context, scope Scope, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		return tx.DeleteDefinition(ctx, id)
	})
}
