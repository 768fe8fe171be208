package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Replace applies a PUT: in draft, scheduled and pending only (else 422
// invalid_transition), the mutable fields are replaced. A scheduled item's
// new send_at reschedules it. It emits <domain>.updated.
func (a *App) Replace(ctx context.Context, scope Scope, d txn.Direction, id string, in txn.Input) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.Update); err != nil {
			return err
		}
		defs, err := tx.AllDefinitions(ctx)
		if err != nil {
			return err
		}
		f, err := txn.ValidateReplace(*it, in, txn.Rules{Now: a.Now(), DefaultCurrency: scope.Currency, Definitions: fielddef.NewSet(defs)})
		if err != nil {
			return err
		}
		setFields(it, f)
		if it.Status == txn.Scheduled {
			if err := tx.Schedule(ctx, *it, store.KindSend, *it.SendAt); err != nil {
				return err
			}
		}
		return a.save(ctx, tx, it)
	})
}
