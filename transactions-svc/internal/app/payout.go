package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// SelectDestination records the destination a recipient chose on the
// hosted payout page of a pending payable whose link (expiring at expires)
// is current, then runs the identity check at once: passed, the payable is
// verified and its disbursement starts; failed, it stays
// destination_selected with failure_reason set. destType and last4 come
// from a checked form (sandbox.DestinationForm.Check). It emits
// payable.destination_selected and payable.updated for each state reached.
func (a *App) SelectDestination(ctx context.Context, id string, expires time.Time, destType, last4 string) (txn.Item, error) {
	tenantID, err := a.route(ctx, txn.Payable, id)
	if err != nil {
		return txn.Item{}, err
	}
	it, err := a.change(ctx, idempotency.Tx{}, tenantID, txn.Payable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := a.checkLink(*it, expires); err != nil {
			return err
		}
		if hostedRail(*it) {
			return ErrHostedRail // the provider takes the destination on its own pages
		}
		if err := move(it, txn.SelectDestination); err != nil {
			return err
		}
		it.Destination, it.FailureReason = &txn.Destination{Type: destType, Last4: last4}, nil
		if err := tx.Unschedule(ctx, it.ID, store.KindFollowUp); err != nil {
			return err
		}
		if err := a.save(ctx, tx, it, evDestinationSelected); err != nil {
			return err
		}
		return a.checkIdentity(ctx, tx, it)
	})
	if err != nil || it.Status != txn.Processing {
		return it, err
	}
	return a.disburse(ctx, idempotency.Tx{}, tenantID, id)
}

// VerifyIdentity re-runs the identity check of a destination_selected
// payable; when it passes, the disbursement runs.
func (a *App) VerifyIdentity(ctx context.Context, scope Scope, id string) (txn.Item, error) {
	it, err := a.change(ctx, scope.Tx, scope.TenantID, txn.Payable, id, func(tx *store.Tx, it *txn.Item) error {
		if !txn.PayableMachine().Allows(it.Status, txn.VerifyIdentity) {
			return move(it, txn.VerifyIdentity) // the refusal, naming the pair
		}
		return a.checkIdentity(ctx, tx, it)
	})
	if err != nil || it.Status != txn.Processing {
		return it, err
	}
	return a.disburse(ctx, scope.Tx, scope.TenantID, id)
}

// RetryDisbursement re-attempts the disbursement of a failed payable.
func (a *App) RetryDisbursement(ctx context.Context, scope Scope, id string) (txn.Item, error) {
	_, err := a.change(ctx, scope.Tx, scope.TenantID, txn.Payable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.RetryDisbursement); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
	if err != nil {
		return txn.Item{}, err
	}
	return a.disburse(ctx, scope.Tx, scope.TenantID, id)
}

// checkIdentity runs the identity check of a destination_selected payable:
// passed, it goes verified and then processing (the disbursement starts);
// failed, it stays with failure_reason set.
func (a *App) checkIdentity(ctx context.Context, tx *store.Tx, it *txn.Item) error {
	now := a.Now()
	res, err := a.sandbox.Verify(ctx, rail.Verify{PayableID: it.ID, Last4: it.Destination.Last4})
	if err != nil {
		return err
	}
	ok, reason := res.Outcome == rail.Approved, res.Reason
	a.observeRail(*it, railmetrics.IdentityCheck, res.Outcome)
	outcome := "passed"
	if !ok {
		outcome = "failed"
	}
	if err := tx.RecordAttempt(ctx, store.Attempt{ID: ids.NewAt(now), ItemID: it.ID, Kind: "identity_check",
		Outcome: outcome, Last4: &it.Destination.Last4, FailureReason: opt(reason), CreatedAt: now}); err != nil {
		return err
	}
	if !ok {
		if err := move(it, txn.IdentityFailed); err != nil {
			return err
		}
		it.FailureReason = &reason
		return a.save(ctx, tx, it)
	}
	if err := move(it, txn.VerifyIdentity); err != nil {
		return err
	}
	it.IdentityVerifiedAt, it.FailureReason = &now, nil
	if err := a.save(ctx, tx, it); err != nil {
		return err
	}
	if err := move(it, txn.Disburse); err != nil {
		return err
	}
	return a.save(ctx, tx, it)
}

// disburse asks the rail to pay out a processing payable and applies the
// answer: disbursed, or failed (retry-disbursement tries again). On Stripe
// the transfer is made under the payable's lock with its idempotency key:
// the payable id, suffixed with the number of transfers Stripe refused
// before. A transfer without an answer (Stripe unavailable) fails the
// payable with provider_unavailable and keeps the key, so the retry cannot
// transfer twice.
func (a *App) disburse(ctx context.Context, wtx idempotency.Tx, tenantID, id string) (txn.Item, error) {
	return a.change(ctx, wtx, tenantID, txn.Payable, id, func(tx *store.Tx, it *txn.Item) error {
		now := a.Now()
		if err := tx.Unschedule(ctx, it.ID, store.KindRailTimeout); err != nil {
			return err
		}
		var (
			res rail.Result
			err error
		)
		if hostedRail(*it) && it.Status != txn.Processing {
			return nil // another request made (or is recording) this transfer
		}
		if hostedRail(*it) {
			res, err = a.transfer(ctx, tx, it)
		} else {
			it.DisbursementAttempts++
			res, err = a.sandbox.Disburse(ctx, rail.Disbursement{PayableID: it.ID, Amount: it.Amount, Currency: it.Currency,
				Last4: it.Destination.Last4, Attempt: it.DisbursementAttempts})
		}
		if err != nil {
			return err
		}
		reason := res.Reason
		var last4 *string // digits of a sandbox destination; a Stripe account has none
		if !hostedRail(*it) {
			last4 = &it.Destination.Last4
		}
		if err := tx.RecordAttempt(ctx, store.Attempt{ID: ids.NewAt(now), ItemID: it.ID, Kind: "disbursement",
			Outcome: string(res.Outcome), Last4: last4, FailureReason: opt(reason), CreatedAt: now}); err != nil {
			return err
		}
		a.observeRail(*it, railmetrics.Disbursement, res.Outcome)
		if res.Reference != "" {
			it.ProviderReference = &res.Reference
		}
		if res.Outcome != rail.Approved {
			if err := move(it, txn.RailFailed); err != nil {
				return err
			}
			it.FailureReason = &reason
			return a.save(ctx, tx, it, evDisbursementFailed)
		}
		if err := move(it, txn.RailDisbursed); err != nil {
			return err
		}
		it.DisbursedAt, it.FailureReason = &now, nil
		if err := stopWork(ctx, tx, *it); err != nil {
			return err
		}
		return a.save(ctx, tx, it, evDisbursed)
	})
}
