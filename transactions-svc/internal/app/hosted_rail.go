package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/paylane/paylane/libs/idempotency"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Errors of hosted rails.
var (
	// ErrHostedRail: the item's rail takes the customer to the provider's
	// own page; the sandbox form does not apply to it.
	ErrHostedRail = errors.New("app: the provider's page collects this item")
	// ErrProviderRefused: the provider refused to open its page (the reason
	// is recorded as an attempt).
	ErrProviderRefused = errors.New("app: the payment provider refused the request")
)

// ReasonProviderUnavailable is the failure_reason of a transfer Stripe did
// not answer; the retry uses the same idempotency key.
const ReasonProviderUnavailable = "provider_unavailable"

// hostedRail reports whether a provider's pages serve the item.
func hostedRail(it txn.Item) bool {
	return it.Rail == string(rail.Stripe)
}

// adapterOf returns the adapter of the item's rail, read in tx.
func (a *App) adapterOf(ctx context.Context, tx *store.Tx, it txn.Item) (rail.Adapter, error) {
	if !hostedRail(it) {
		return a.sandbox, nil
	}
	if a.rails == nil || it.RailID == nil {
		return nil, ErrRailsOff
	}
	r, err := tx.PaymentRail(ctx, *it.RailID)
	if err != nil {
		return nil, err
	}
	key, _, err := a.railSecrets(tx.TenantID(), r)
	if err != nil {
		return nil, err
	}
	return a.rails.Stripe.Adapter(r.ID, key), nil
}

// idemKey is the provider idempotency key of an item's n-th attempt: the
// item id, suffixed from the second on.
func idemKey(id string, n int) string {
	if n == 0 {
		return id
	}
	return fmt.Sprintf("%s-%d", id, n)
}

// StartCheckout hands the payer of a pending receivable on a hosted rail,
// opened through its link (OpenLink), to the provider's checkout page and
// returns its URL. The receivable stays pending until the provider's
// signed webhook settles it. ErrUnavailable: the provider did not answer
// (the link keeps working; nothing was charged).
func (a *App) StartCheckout(ctx context.Context, it txn.Item, returnURL, cancelURL string) (string, error) {
	var res rail.Result
	err := a.store.Write(ctx, idempotency.Tx{}, it.TenantID, func(tx *store.Tx) error {
		ad, err := a.adapterOf(ctx, tx, it)
		if err != nil {
			return err
		}
		desc := ""
		if it.Description != nil {
			desc = *it.Description
		}
		res, err = ad.Charge(ctx, rail.Charge{ReceivableID: it.ID, Amount: it.Amount, Currency: it.Currency,
			Description: desc, IdempotencyKey: idemKey(it.ID, it.Declines), ReturnURL: returnURL, CancelURL: cancelURL})
		if err != nil {
			return err
		}
		if res.Outcome != rail.Redirect {
			return fmt.Errorf("%w: %s", ErrProviderRefused, res.Reason)
		}
		return tx.SetProviderReference(ctx, it.TransactionID, res.Reference)
	})
	if errors.Is(err, rail.ErrUnavailable) || errors.Is(err, ErrProviderRefused) {
		a.observeRail(it, railmetrics.Charge, rail.Error)
	}
	if errors.Is(err, rail.ErrUnavailable) {
		return "", fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return res.URL, err
}

// PayoutStep is where a recipient goes next on a hosted rail's payout page.
type PayoutStep struct {
	// RedirectURL is the provider's onboarding page, when the recipient
	// must (still) go there.
	RedirectURL string
	// Item is the payable after the step.
	Item txn.Item
}

// StartPayout moves a pending payable on a hosted rail, opened through its
// link, towards its transfer: a recipient whose provider account can
// receive transfers (remembered by phone, so a second payout skips
// onboarding) is paid at once; otherwise the account is created (once) and
// the recipient sent to the provider's onboarding (RedirectURL), unless
// returning from it, when the page says the provider is still checking.
// ErrUnavailable: the provider did not answer (nothing moved).
func (a *App) StartPayout(ctx context.Context, it txn.Item, returning bool, returnURL, refreshURL string) (PayoutStep, error) {
	var (
		res rail.Result
		acc store.RailAccount
	)
	err := a.store.Write(ctx, idempotency.Tx{}, it.TenantID, func(tx *store.Tx) error {
		ad, err := a.adapterOf(ctx, tx, it)
		if err != nil {
			return err
		}
		var known bool
		if acc, known, err = tx.RailAccount(ctx, *it.RailID, it.Recipient.Phone); err != nil {
			return err
		}
		if known && acc.Ready {
			res = rail.Result{Outcome: rail.Approved, Reference: acc.AccountID}
			return nil
		}
		res, err = ad.Verify(ctx, rail.Verify{PayableID: it.ID, Account: acc.AccountID,
			AccountKey: recipientKey(it.TenantID, *it.RailID, it.Recipient.Phone), ReturnURL: returnURL, RefreshURL: refreshURL})
		if err != nil || res.Reference == "" {
			return err
		}
		acc = store.RailAccount{Phone: it.Recipient.Phone, AccountID: res.Reference, Ready: res.Outcome == rail.Approved}
		return tx.SaveRailAccount(ctx, *it.RailID, acc, a.Now())
	})
	switch {
	case errors.Is(err, rail.ErrUnavailable):
		a.observeRail(it, railmetrics.IdentityCheck, rail.Error)
		return PayoutStep{Item: it}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case err != nil:
		return PayoutStep{Item: it}, err
	case res.Outcome == rail.Approved:
		paid, err := a.payToAccount(ctx, it.TenantID, it.ID, acc.AccountID)
		return PayoutStep{Item: paid}, err
	case res.Outcome == rail.Redirect && !returning:
		return PayoutStep{RedirectURL: res.URL, Item: it}, nil
	case res.Outcome == rail.Redirect:
		return PayoutStep{Item: it}, nil
	}
	return PayoutStep{Item: it}, fmt.Errorf("%w: %s", ErrProviderRefused, res.Reason)
}

// recipientKey names a recipient in the provider's idempotency keys
// without showing the phone number.
func recipientKey(tenantID, railID, phone string) string {
	sum := sha256.Sum256([]byte(tenantID + "/" + railID + "/" + phone))
	return hex.EncodeToString(sum[:16])
}

// payToAccount selects the recipient's connected account as the payable's
// destination (the provider verified the recipient during onboarding), so
// the payable goes destination_selected, verified and processing, and then
// transfers the amount. A payable no longer pending is returned as it is.
func (a *App) payToAccount(ctx context.Context, tenantID, id, account string) (txn.Item, error) {
	moved := false
	it, err := a.change(ctx, idempotency.Tx{}, tenantID, txn.Payable, id, func(tx *store.Tx, it *txn.Item) error {
		if it.Status != txn.Pending {
			return nil
		}
		moved = true
		now := a.Now()
		if err := move(it, txn.SelectDestination); err != nil {
			return err
		}
		it.Destination, it.FailureReason = &txn.Destination{Type: txn.StripeAccount, Last4: last4(account)}, nil
		if err := tx.Unschedule(ctx, it.ID, store.KindFollowUp); err != nil {
			return err
		}
		if err := a.save(ctx, tx, it, evDestinationSelected); err != nil {
			return err
		}
		if err := move(it, txn.VerifyIdentity); err != nil {
			return err
		}
		it.IdentityVerifiedAt = &now
		if err := a.save(ctx, tx, it); err != nil {
			return err
		}
		if err := move(it, txn.Disburse); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
	if err != nil || !moved {
		return it, err // a concurrent visit or event moved it: that one transfers
	}
	return a.disburse(ctx, idempotency.Tx{}, tenantID, id)
}

// transfer makes the Stripe transfer of a processing payable locked in tx
// (see disburse).
func (a *App) transfer(ctx context.Context, tx *store.Tx, it *txn.Item) (rail.Result, error) {
	ad, err := a.adapterOf(ctx, tx, *it)
	if err != nil {
		return rail.Result{}, err
	}
	acc, known, err := tx.RailAccount(ctx, *it.RailID, it.Recipient.Phone)
	if err != nil {
		return rail.Result{}, err
	}
	if !known {
		return rail.Result{Outcome: rail.Error, Reason: "no_provider_account"}, nil
	}
	res, err := ad.Disburse(ctx, rail.Disbursement{PayableID: it.ID, Amount: it.Amount, Currency: it.Currency,
		Account: acc.AccountID, IdempotencyKey: idemKey(it.ID, it.DisbursementAttempts)})
	if errors.Is(err, rail.ErrUnavailable) {
		return rail.Result{Outcome: rail.Error, Reason: ReasonProviderUnavailable}, nil
	}
	if err == nil && res.Outcome != rail.Approved {
		it.DisbursementAttempts++ // refused for good: the next transfer is another one
	}
	return res, err
}
