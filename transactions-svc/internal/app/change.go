package app

import (
	"context"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// change runs one change of an item: in the write transaction wtx (the
// request's, or the zero Tx for one of its own) scoped to tenantID it
// loads the item FOR UPDATE (child and parent, so a concurrent change waits
// and then sees this one's outcome), and lets fn decide, modify, save and
// emit. It returns the item as fn left it.
func (a *App) change(ctx context.Context, wtx idempotency.Tx, tenantID string, d txn.Direction, id string,
	fn func(tx *store.Tx, it *txn.Item) error) (txn.Item, error) {
	if err := checkID(id); err != nil {
		return txn.Item{}, err
	}
	var out txn.Item
	err := a.store.Write(ctx, wtx, tenantID, func(tx *store.Tx) error {
		it, err := tx.LockItem(ctx, d, id)
		if err != nil {
			return err
		}
		if err := fn(tx, &it); err != nil {
			return err
		}
		out = it
		return nil
	})
	return out, err
}

// move applies action to the item's state with its direction's machine.
// Delete keeps the stored state (the row gets deleted_at).
func move(it *txn.Item, action txn.Action) error {
	next, err := it.Direction.Machine().Next(it.Status, action)
	if err != nil {
		return err
	}
	if action != txn.Delete {
		it.Status = next
	}
	return nil
}

// save writes the item with updated_at now and records the events: own
// (receivable.paid, ...) followed by <domain>.updated. An item saved in
// processing (it just got there: no action keeps it there) gets its rail
// timeout queued (awaitRail).
func (a *App) save(ctx context.Context, tx *store.Tx, it *txn.Item, own ...string) error {
	it.UpdatedAt = a.Now()
	if err := tx.UpdateItem(ctx, *it); err != nil {
		return err
	}
	if it.Status == txn.Processing {
		if err := a.awaitRail(ctx, tx, *it); err != nil {
			return err
		}
	}
	return a.emitState(ctx, tx, *it, own...)
}
