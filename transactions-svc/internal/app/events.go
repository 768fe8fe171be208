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
		env, err := itemEvent(ctx, tx.TenantID(), it, name, data)
		if err != nil {
			return err
		}
		if err := tx.Publish(ctx, env); err != nil {
			return err
		}
	}
	return nil
}

// itemEvent is the event "<domain>.<name>" about it with data, the item as
// the API shows it (App.View).
func itemEvent(ctx context.Context, tenantID string, it txn.Item, name string, data any) (events.Envelope, error) {
	return events.New(string(it.Direction)+"."+name, tenantID, reqid.From(ctx), data)
}

// emitState records the events of a state change: the state's own event
// (when it has one) and <domain>.updated.
func (a *App) emitState(ctx context.Context, tx *store.Tx, it txn.Item, own ...string) error {
	return a.emit(ctx, tx, it, append(own, evUpdated)...)
}
