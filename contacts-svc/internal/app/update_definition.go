package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// ReplaceDefinition applies a PUT to a definition: label, options and
// required are replaced; key and type are immutable (sending another value
// is a *contact.ValidationError). Contacts keep their stored values; the new
// rules apply to their next write of custom_fields.
func (a *App) ReplaceDefinition(ctx context.Context, scope Scope, id string, in contact.DefinitionInput) (contact.Definition, error) {
	if err := checkID(id); err != nil {
		return contact.Definition{}, err
	}
	var d contact.Definition
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		cur, err := tx.Definition(ctx, id, true)
		if err != nil {
			return err
		}
		if d, err = cur.Replace(in); err != nil {
			return err
		}
		d.UpdatedAt = a.timestamp()
		return tx.SaveDefinition(ctx, d)
	})
	return d, err
}
