package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Delete soft-deletes a receivable or payable in draft, cancelled or
// expired (else 422 invalid_transition "<state> -> deleted"): it keeps its
// state, gets deleted_at and leaves lists and reads. The event catalog has
// no deleted type for transactions, so nothing is emitted.
func (a *App) Delete(ctx context.Context, scope Scope, d txn.Direction, id string) error {
	_, err := a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.Delete); err != nil {
			return err
		}
		now := a.Now()
		it.DeletedAt, it.UpdatedAt = &now, now
		if err := tx.UpdateItem(ctx, *it); err != nil {
			return err
		}
		return stopWork(ctx, tx, *it)
	})
	return err
}
