package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Pay charges a card on the hosted pay page of a pending receivable whose
// link (expiring at expires) is current. The receivable is locked and moved
// to processing in one transaction (a concurrent submission or action waits
// and then finds it processing); the rail answers outside it; a second
// transaction applies the answer: paid, pending again after a decline (the
// link is revoked after the fifth), or failed after a processor error.
// The card form must have been checked (sandbox.CardForm.Check).
func (a *App) Pay(ctx context.Context, id string, expires time.Time, card sandbox.CardForm) (txn.Item, error) {
	tenantID, err := a.route(ctx, txn.Receivable, id)
	if err != nil {
		return txn.Item{}, err
	}
	_, err = a.change(ctx, idempotency.Tx{}, tenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := a.checkLink(*it, expires); err != nil {
			return err
		}
		if hostedRail(*it) {
			return ErrHostedRail // no card number is taken for a provider's rail
		}
		if err := move(it, txn.SubmitCard); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
	if err != nil {
		return txn.Item{}, err
	}
	res, err := a.sandbox.Charge(ctx, rail.Charge{ReceivableID: id, CardNumber: card.Number})
	if err != nil {
		return txn.Item{}, err
	}
	return a.applyCharge(ctx, idempotency.Tx{}, tenantID, id, res)
}

// RetryPayment re-attempts the processor call of a failed receivable
// (failed -> processing -> paid or failed). The sandbox rail succeeds on a
// retry, with the card of the failed attempt. On a hosted rail (Stripe) the
// payer must pay again on the provider's page: the retry reopens the
// receivable (processing -> pending, its link working again) and the next
// visit of the link starts a new checkout.
func (a *App) RetryPayment(ctx context.Context, scope Scope, id string) (txn.Item, error) {
	var (
		res    rail.Result
		hosted bool
	)
	it, err := a.change(ctx, scope.Tx, scope.TenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.RetryPayment); err != nil {
			return err
		}
		if it.Rail == string(rail.Stripe) {
			hosted = true
			if err := tx.Unschedule(ctx, it.ID, store.KindRailTimeout); err != nil {
				return err
			}
			if err := move(it, txn.RailDeclined); err != nil {
				return err
			}
			return a.save(ctx, tx, it)
		}
		var err error
		if res, err = a.sandbox.Charge(ctx, rail.Charge{ReceivableID: it.ID, Retry: true}); err != nil {
			return err
		}
		res.Brand, res.Last4 = deref(it.CardBrand), deref(it.CardLast4)
		return a.save(ctx, tx, it)
	})
	if err != nil || hosted {
		return it, err
	}
	return a.applyCharge(ctx, scope.Tx, scope.TenantID, id, res)
}

// applyCharge records the rail's answer on a processing receivable, in the
// write transaction wtx of the request that charged.
func (a *App) applyCharge(ctx context.Context, wtx idempotency.Tx, tenantID, id string, ch rail.Result) (txn.Item, error) {
	return a.change(ctx, wtx, tenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		a.observeRail(*it, railmetrics.Charge, ch.Outcome)
		return a.recordCharge(ctx, tx, it, ch)
	})
}

// recordCharge applies a rail's answer to a receivable locked in tx and
// processing: paid, pending again after a decline (the link is revoked
// after the fifth), or failed.
func (a *App) recordCharge(ctx context.Context, tx *store.Tx, it *txn.Item, ch rail.Result) error {
	now := a.Now()
	if err := tx.Unschedule(ctx, it.ID, store.KindRailTimeout); err != nil {
		return err
	}
	if err := tx.RecordAttempt(ctx, store.Attempt{ID: ids.NewAt(now), ItemID: it.ID, Kind: "charge",
		Outcome: string(ch.Outcome), Brand: opt(ch.Brand), Last4: opt(ch.Last4), FailureReason: opt(ch.Reason), CreatedAt: now}); err != nil {
		return err
	}
	if ch.Brand != "" || ch.Last4 != "" {
		it.CardBrand, it.CardLast4 = opt(ch.Brand), opt(ch.Last4)
	}
	if ch.Reference != "" {
		it.ProviderReference = &ch.Reference
	}
	switch ch.Outcome {
	case rail.Approved:
		if err := move(it, txn.RailPaid); err != nil {
			return err
		}
		method := txn.MethodCard
		it.PaidAt, it.PaymentMethod, it.FailureReason = &now, &method, nil
		if err := stopWork(ctx, tx, *it); err != nil {
			return err
		}
		return a.save(ctx, tx, it, evPaid)
	case rail.Declined:
		if err := move(it, txn.RailDeclined); err != nil {
			return err
		}
		it.Declines++
		if it.Declines >= txn.MaxDeclines {
			a.revoke(it)
		}
	default:
		if err := move(it, txn.RailError); err != nil {
			return err
		}
	}
	it.FailureReason = opt(ch.Reason)
	return a.save(ctx, tx, it, evPaymentFailed)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
