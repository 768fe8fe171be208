package app

import (
	"context"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Get returns a live receivable or payable of the tenant.
func (a *App) Get(ctx context.Context, scope Scope, d txn.Direction, id string) (txn.Item, error) {
	if err := checkID(id); err != nil {
		return txn.Item{}, err
	}
	var it txn.Item
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		it, err = tx.Item(ctx, d, id)
		return err
	})
	return it, err
}

// List returns a page of the tenant's live receivables or payables matching
// f, newest first, and how many match in all (exact up to a cap, estimated
// above it: listtotal).
func (a *App) List(ctx context.Context, scope Scope, d txn.Direction, f store.Filter, p Page) ([]txn.Item, listtotal.Total, error) {
	var (
		list  []txn.Item
		total listtotal.Total
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListItems(ctx, d, f, p.Limit, p.Offset)
		return err
	})
	return list, total, err
}
