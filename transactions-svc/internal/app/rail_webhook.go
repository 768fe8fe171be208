package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// ErrInvalidSignature: a provider webhook whose signature does not verify
// with the rail's secrets, or for a rail that does not exist (401
// invalid_signature).
var ErrInvalidSignature = apierr.NewSentinel("app: invalid provider signature",
	apierr.New(http.StatusUnauthorized, apierr.CodeInvalidSignature, "The webhook signature does not verify."))

// RailWebhook applies a provider's signed webhook to the rail railID: the
// signature is verified with the rail's webhook secrets; an event already
// applied (a replay) changes nothing. Payments settle receivables (paid, or
// failed with the provider's reason); a recipient's account becoming ready
// pays its pending payables; a transfer settles a payable whose transfer
// answer was not recorded.
func (a *App) RailWebhook(ctx context.Context, provider, railID string, payload []byte, signature string, log *slog.Logger) error {
	if a.rails == nil || provider != string(rail.Stripe) || !ids.Valid(railID) || signature == "" {
		return ErrInvalidSignature
	}
	tenantID, err := a.store.RailTenant(ctx, railID)
	if errors.Is(err, store.ErrNoRail) {
		return ErrInvalidSignature
	}
	if err != nil {
		return err
	}
	var payables []string
	var account string
	err = a.store.Write(ctx, idempotency.Tx{}, tenantID, func(tx *store.Tx) error {
		r, err := tx.PaymentRail(ctx, railID)
		if err != nil {
			return err
		}
		_, secrets, err := a.railSecrets(tenantID, r)
		if err != nil {
			return err
		}
		ev, err := striperail.ParseEvent(payload, signature, secrets...)
		if errors.Is(err, striperail.ErrSignature) {
			return ErrInvalidSignature
		}
		if err != nil {
			return err
		}
		fresh, err := tx.ClaimRailEvent(ctx, railID, ev.ID, ev.Type, a.Now())
		if err != nil || !fresh {
			return err
		}
		switch ev.Kind {
		case rail.Paid, rail.PaymentFailed:
			return a.settleReceivable(ctx, tx, railID, ev, log)
		case rail.Transferred:
			return a.settleTransfer(ctx, tx, railID, ev)
		case rail.AccountReady:
			phone, ours, err := tx.MarkAccountReady(ctx, railID, ev.Account, a.Now())
			if err != nil || !ours {
				return err
			}
			account = ev.Account
			payables, err = tx.PendingPayablesOf(ctx, railID, phone)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The transfers run after the event is recorded, each under its
	// payable's lock; one that fails leaves its payable failed (retry
	// applies) or pending (the next visit of the link pays it).
	for _, id := range payables {
		if _, err := a.payToAccount(ctx, tenantID, id, account); err != nil {
			log.Warn("paying out to a ready account", "payable_id", id, "error", err)
		}
	}
	return nil
}

// settleReceivable applies a payment event to the receivable it names, when
// that receivable is on this rail: paid (from pending, processing or
// failed) or failed with the provider's reason. A receivable already paid,
// cancelled or expired keeps its state; the attempt is recorded.
func (a *App) settleReceivable(ctx context.Context, tx *store.Tx, railID string, ev rail.Event, log *slog.Logger) error {
	if checkID(ev.ReceivableID) != nil {
		return nil
	}
	it, err := tx.LockItem(ctx, txn.Receivable, ev.ReceivableID)
	if errors.Is(err, txn.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if it.RailID == nil || *it.RailID != railID {
		return nil
	}
	res := rail.Result{Outcome: rail.Approved, Reference: ev.Reference}
	if ev.Kind == rail.PaymentFailed {
		res = rail.Result{Outcome: rail.Error, Reason: ev.Reason, Reference: ev.Reference}
	}
	switch it.Status {
	case txn.Pending:
		if err := move(&it, txn.SubmitCard); err != nil {
			return err
		}
	case txn.Failed:
		if ev.Kind == rail.PaymentFailed {
			return nil
		}
		if err := move(&it, txn.RetryPayment); err != nil {
			return err
		}
	case txn.Processing:
	default:
		log.Warn("provider payment event for a receivable that is not payable", "receivable_id", it.ID,
			"status", it.Status, "event_type", ev.Type)
		now := a.Now()
		return tx.RecordAttempt(ctx, store.Attempt{ID: ids.NewAt(now), ItemID: it.ID, Kind: "charge",
			Outcome: string(res.Outcome), FailureReason: opt("unexpected_" + ev.Type), CreatedAt: now})
	}
	if ev.Kind == rail.PaymentFailed {
		it.Declines++ // the next checkout is a new one
	}
	// A payment the provider reports failed is the payer's (a card or bank
	// debit refused on the provider's page), not the rail's own failure.
	observed := res.Outcome
	if ev.Kind == rail.PaymentFailed {
		observed = rail.Declined
	}
	a.observeRail(it, railmetrics.Charge, observed)
	return a.recordCharge(ctx, tx, &it, res)
}

// settleTransfer marks a processing payable disbursed when the provider
// reports its transfer (the answer of the transfer call was lost).
func (a *App) settleTransfer(ctx context.Context, tx *store.Tx, railID string, ev rail.Event) error {
	if checkID(ev.PayableID) != nil {
		return nil
	}
	it, err := tx.LockItem(ctx, txn.Payable, ev.PayableID)
	if errors.Is(err, txn.ErrNotFound) {
		return nil
	}
	if err != nil || it.RailID == nil || *it.RailID != railID || it.Status != txn.Processing {
		return err
	}
	now := a.Now()
	if err := tx.Unschedule(ctx, it.ID, store.KindRailTimeout); err != nil {
		return err
	}
	if err := move(&it, txn.RailDisbursed); err != nil {
		return err
	}
	it.DisbursedAt, it.FailureReason, it.ProviderReference = &now, nil, &ev.Reference
	a.observeRail(it, railmetrics.Disbursement, rail.Approved)
	if err := stopWork(ctx, tx, it); err != nil {
		return err
	}
	return a.save(ctx, tx, &it, evDisbursed)
}
