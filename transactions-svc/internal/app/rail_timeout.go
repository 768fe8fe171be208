package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// railTimeout is how long an item may stay processing before the scheduler
// treats the rail's answer as lost. A charge or disbursement moves the item
// to processing in one transaction and records the rail's answer in a
// second; a process that stops in between (or a failed second write) would
// otherwise leave it processing for good, where no action applies.
const railTimeout = 5 * time.Minute

// ReasonRailTimeout is the failure_reason of an item failed by railTimeout.
const ReasonRailTimeout = "processor_timeout"

// awaitRail queues the safety net of an item entering processing; recording
// the rail's answer drops it.
func (a *App) awaitRail(ctx context.Context, tx *store.Tx, it txn.Item) error {
	return tx.Schedule(ctx, it, store.KindRailTimeout, a.Now().Add(railTimeout))
}

// railTimeoutDue fails an item still processing railTimeout after it got
// there (updated_at) as after a processor error: failed with
// failure_reason processor_timeout, so retry-payment / retry-disbursement,
// mark-paid / mark-disbursed and (receivables) cancel apply again. It emits
// <domain>.payment_failed or payable.disbursement_failed, and
// <domain>.updated.
func (a *App) railTimeoutDue(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	if it.Status != txn.Processing {
		return nil
	}
	if due := it.UpdatedAt.Add(railTimeout); a.Now().Before(due) {
		return tx.Schedule(ctx, *it, store.KindRailTimeout, due)
	}
	action, own, operation := txn.RailError, evPaymentFailed, railmetrics.Charge
	if it.Direction == txn.Payable {
		action, own, operation = txn.RailFailed, evDisbursementFailed, railmetrics.Disbursement
	}
	a.observeRail(*it, operation, rail.Error) // the rail never answered
	if err := move(it, action); err != nil {
		return err
	}
	reason := ReasonRailTimeout
	it.FailureReason = &reason
	return a.save(ctx, tx, it, own)
}
