package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// charge is a card payment to apply: the rail's answer and the card's
// summary (last four digits and brand only).
type charge struct {
	outcome sandbox.Outcome
	reason  string
	brand   string
	last4   string
}

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
	_, err = a.change(ctx, tenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := a.checkLink(*it, expires); err != nil {
			return err
		}
		if err := move(it, txn.SubmitCard); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
	if err != nil {
		return txn.Item{}, err
	}
	outcome, reason := sandbox.Charge(card.Number, false)
	a.rails.Observe(sandboxRail, railmetrics.Charge, chargeOutcome(outcome))
	return a.applyCharge(ctx, tenantID, id, charge{outcome: outcome, reason: reason,
		brand: sandbox.Brand(card.Number), last4: sandbox.Last4(card.Number)})
}

// RetryPayment re-attempts the processor call of a failed receivable
// (failed -> processing -> paid or failed). The sandbox rail succeeds on a
// retry, with the card of the failed attempt.
func (a *App) RetryPayment(ctx context.Context, scope Scope, id string) (txn.Item, error) {
	var ch charge
	_, err := a.change(ctx, scope.TenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.RetryPayment); err != nil {
			return err
		}
		ch.outcome, ch.reason = sandbox.Charge("", true)
		ch.brand, ch.last4 = deref(it.CardBrand), deref(it.CardLast4)
		return a.save(ctx, tx, it)
	})
	if err != nil {
		return txn.Item{}, err
	}
	a.rails.Observe(sandboxRail, railmetrics.Charge, chargeOutcome(ch.outcome))
	return a.applyCharge(ctx, scope.TenantID, id, ch)
}

// applyCharge records the rail's answer on a processing receivable.
func (a *App) applyCharge(ctx context.Context, tenantID, id string, ch charge) (txn.Item, error) {
	return a.change(ctx, tenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		now := a.Now()
		if err := tx.Unschedule(ctx, it.ID, store.KindRailTimeout); err != nil {
			return err
		}
		if err := tx.RecordAttempt(ctx, store.Attempt{ID: ids.NewAt(now), ItemID: it.ID, Kind: "charge",
			Outcome: string(ch.outcome), Brand: opt(ch.brand), Last4: opt(ch.last4), FailureReason: opt(ch.reason), CreatedAt: now}); err != nil {
			return err
		}
		it.CardBrand, it.CardLast4 = opt(ch.brand), opt(ch.last4)
		switch ch.outcome {
		case sandbox.Approved:
			if err := move(it, txn.RailPaid); err != nil {
				return err
			}
			method := txn.MethodCard
			it.PaidAt, it.PaymentMethod, it.FailureReason = &now, &method, nil
			if err := stopWork(ctx, tx, *it); err != nil {
				return err
			}
			return a.save(ctx, tx, it, evPaid)
		case sandbox.Declined:
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
		it.FailureReason = opt(ch.reason)
		return a.save(ctx, tx, it, evPaymentFailed)
	})
}

// sandboxRail names the built-in simulator in rail_operations_total.
const sandboxRail = "sandbox"

// chargeOutcome is the sandbox's answer in the words of railmetrics.
func chargeOutcome(o sandbox.Outcome) string {
	switch o {
	case sandbox.Approved:
		return railmetrics.Succeeded
	case sandbox.Declined:
		return railmetrics.Declined
	default:
		return railmetrics.Error
	}
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
