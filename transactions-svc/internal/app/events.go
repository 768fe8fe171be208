package app

import (
	"context"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Event names by domain: receivable.<name> or payable.<name>.
const (
	evCreated             = "created"
	evUpdated             = "updated"
	evPaid                = "paid"
	evPaymentFailed       = "payment_failed"
	evCancelled           = "cancelled"
	evExpired             = "expired"
	evDestinationSelected = "destination_selected"
	evDisbursed           = "disbursed"
	evDisbursementFailed  = "disbursement_failed"
)

// emit records events about it in the outbox of tx: "<domain>.<name>" for
// each name, the data being the item as the API shows it.
func (a *App) emit(ctx context.Context, tx *store.Tx, it txn.Item, names ...string) error {
	data := a.View(it)
	for _, name := range names {
		env, err := events.New(string(it.Direction)+"."+name, tx.TenantID(), reqid.From(ctx), data)
		if err != nil {
			return err
		}
		if err := tx.Publish(ctx, env); err != nil {
			return err
		}
	}
	return nil
}

// emitState records the events of a state change: the state's own event
// (when it has one) and <domain>.updated.
func (a *App) emitState(ctx context.Context, tx *store.Tx, it txn.Item, own ...string) error {
	return a.emit(ctx, tx, it, append(own, evUpdated)...)
}
