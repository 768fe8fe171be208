package app

import (
	"context"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// CreateDefinition validates and stores a transaction field definition; a
// key the tenant already uses is fielddef.ErrKeyTaken.
func (a *App) CreateDefinition(ctx context.Context, scope Scope, in fielddef.Input) (fielddef.Definition, error) {
	d, err := fielddef.New(in)
	if err != nil {
		return fielddef.Definition{}, err
	}
	now := a.Now()
	d.ID, d.TenantID, d.CreatedAt, d.UpdatedAt = ids.NewAt(now), scope.TenantID, now, now
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error { return tx.InsertDefinition(ctx, d) })
	return d, err
}

// GetDefinition returns one definition.
func (a *App) GetDefinition(ctx context.Context, scope Scope, id string) (fielddef.Definition, error) {
	if checkID(id) != nil {
		return fielddef.Definition{}, fielddef.ErrNotFound
	}
	var d fielddef.Definition
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		d, err = tx.Definition(ctx, id, false)
		return err
	})
	return d, err
}

// ListDefinitions returns a page of definitions, newest first, and the
// total.
func (a *App) ListDefinitions(ctx context.Context, scope Scope, p Page) ([]fielddef.Definition, int, error) {
	var (
		list  []fielddef.Definition
		total int
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListDefinitions(ctx, p.Limit, p.Offset)
		return err
	})
	return list, total, err
}

// ReplaceDefinition applies a PUT (label, options, required; key and type
// are immutable).
func (a *App) ReplaceDefinition(ctx context.Context, scope Scope, id string, in fielddef.Input) (fielddef.Definition, error) {
	if checkID(id) != nil {
		return fielddef.Definition{}, fielddef.ErrNotFound
	}
	var d fielddef.Definition
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		cur, err := tx.Definition(ctx, id, true)
		if err != nil {
			return err
		}
		if d, err = cur.Replace(in); err != nil {
			return err
		}
		d.UpdatedAt = a.Now()
		return tx.UpdateDefinition(ctx, d)
	})
	return d, err
}

// DeleteDefinition removes a definition. Values already stored on
// transactions stay; new writes may no longer use the key.
func (a *App) DeleteDefinition(ctx context.Context, scope Scope, id string) error {
	if checkID(id) != nil {
		return fielddef.ErrNotFound
	}
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error { return tx.DeleteDefinition(ctx, id) })
}
