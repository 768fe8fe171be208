package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Cancel cancels a receivable (draft, scheduled, pending, failed; 409
// already_paid once paid) or a payable (draft, scheduled, pending: not once
// a destination is selected). It emits <domain>.cancelled and
// <domain>.updated.
func (a *App) Cancel(ctx context.Context, scope Scope, d txn.Direction, id string) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.Cancel); err != nil {
			return err
		}
		if err := stopWork(ctx, tx, *it); err != nil {
			return err
		}
		return a.save(ctx, tx, it, evCancelled)
	})
}

// Expire ages out a scheduled or pending item (the expire action). It emits
// <domain>.expired and <domain>.updated.
func (a *App) Expire(ctx context.Context, scope Scope, d txn.Direction, id string) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		return a.expire(ctx, tx, it, txn.Expire)
	})
}

// expire moves the item to expired by action (expire, link_expired,
// draft_timeout).
func (a *App) expire(ctx context.Context, tx *store.Tx, it *txn.Item, action txn.Action) error {
	if err := move(it, action); err != nil {
		return err
	}
	if err := stopWork(ctx, tx, *it); err != nil {
		return err
	}
	return a.save(ctx, tx, it, evExpired)
}
