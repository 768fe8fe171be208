package striperail

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
)

// Metadata keys Paylane sets on Stripe objects, read back from events.
const (
	MetaReceivable = "paylane_receivable_id"
	MetaPayable    = "paylane_payable_id"
)

// adapter is one tenant's Stripe rail.
type adapter struct {
	c      *Client
	railID string
	key    string
}

func (a *adapter) Provider() rail.Provider { return rail.Stripe }

// Charge opens a Checkout Session for the receivable's amount and currency
// and answers Redirect to it. The receivable id is the session's
// client_reference_id and metadata (also on its PaymentIntent), and the
// idempotency key, so a second visit of the link within Stripe's
// idempotency window gets the same session.
func (a *adapter) Charge(ctx context.Context, ch rail.Charge) (rail.Result, error) {
	name := strings.TrimSpace(ch.Description)
	if name == "" {
		name = "Payment"
	}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		SuccessURL:        stripe.String(ch.ReturnURL),
		CancelURL:         stripe.String(ch.CancelURL),
		ClientReferenceID: stripe.String(ch.ReceivableID),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(ch.Currency)),
				UnitAmount:  stripe.Int64(ch.Amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(name)},
			},
		}},
		Metadata: map[string]string{MetaReceivable: ch.ReceivableID},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{
			Metadata: map[string]string{MetaReceivable: ch.ReceivableID},
		},
	}
	params.SetIdempotencyKey(ch.IdempotencyKey)
	var s *stripe.CheckoutSession
	err := a.c.call(ctx, a.railID, func(ctx context.Context) error {
		var err error
		s, err = a.c.api(a.key).V1CheckoutSessions.Create(ctx, params)
		return err
	})
	if reason, ok := refusal(err); ok {
		return rail.Result{Outcome: rail.Error, Reason: reason}, nil
	}
	if err != nil {
		return rail.Result{}, unavailable(err)
	}
	return rail.Result{Outcome: rail.Redirect, Reference: s.ID, URL: s.URL}, nil
}

// Verify answers Approved for a recipient whose connected account can
// receive transfers; otherwise it creates the account (once per recipient:
// AccountKey is in the idempotency key) and answers Redirect to Stripe's
// hosted onboarding, where Stripe verifies the recipient and takes the bank
// account or card. Reference is the account id either way.
func (a *adapter) Verify(ctx context.Context, v rail.Verify) (rail.Result, error) {
	api := a.c.api(a.key)
	account := v.Account
	if account != "" {
		var acct *stripe.Account
		err := a.c.call(ctx, a.railID, func(ctx context.Context) error {
			var err error
			acct, err = api.V1Accounts.GetByID(ctx, account, nil)
			return err
		})
		if err != nil {
			if _, ok := refusal(err); !ok {
				return rail.Result{}, unavailable(err)
			}
		} else if Ready(acct.PayoutsEnabled, string(capabilityOf(acct))) {
			return rail.Result{Outcome: rail.Approved, Reference: account}, nil
		}
	} else {
		params := &stripe.AccountCreateParams{
			Type: stripe.String(string(stripe.AccountTypeExpress)),
			Capabilities: &stripe.AccountCreateCapabilitiesParams{
				Transfers: &stripe.AccountCreateCapabilitiesTransfersParams{Requested: stripe.Bool(true)},
			},
			Metadata: map[string]string{MetaPayable: v.PayableID},
		}
		params.SetIdempotencyKey("account-" + v.AccountKey)
		var acct *stripe.Account
		err := a.c.call(ctx, a.railID, func(ctx context.Context) error {
			var err error
			acct, err = api.V1Accounts.Create(ctx, params)
			return err
		})
		if reason, ok := refusal(err); ok {
			return rail.Result{Outcome: rail.Error, Reason: reason}, nil
		}
		if err != nil {
			return rail.Result{}, unavailable(err)
		}
		account = acct.ID
	}
	link := &stripe.AccountLinkCreateParams{
		Account:    stripe.String(account),
		Type:       stripe.String(string(stripe.AccountLinkTypeAccountOnboarding)),
		ReturnURL:  stripe.String(v.ReturnURL),
		RefreshURL: stripe.String(v.RefreshURL),
	}
	// An onboarding link is single-use and short-lived: a repeated request
	// (a double click) within the same minute gets the same link, a later
	// visit a fresh one.
	link.SetIdempotencyKey(fmt.Sprintf("account-link-%s-%d", account, time.Now().Unix()/60))
	var al *stripe.AccountLink
	err := a.c.call(ctx, a.railID, func(ctx context.Context) error {
		var err error
		al, err = api.V1AccountLinks.Create(ctx, link)
		return err
	})
	if reason, ok := refusal(err); ok {
		return rail.Result{Outcome: rail.Error, Reason: reason, Reference: account}, nil
	}
	if err != nil {
		return rail.Result{Reference: account}, unavailable(err)
	}
	return rail.Result{Outcome: rail.Redirect, Reference: account, URL: al.URL}, nil
}

// Disburse transfers the payable's amount to the recipient's connected
// account, the idempotency key guarding against a second transfer.
func (a *adapter) Disburse(ctx context.Context, d rail.Disbursement) (rail.Result, error) {
	params := &stripe.TransferCreateParams{
		Amount:        stripe.Int64(d.Amount),
		Currency:      stripe.String(strings.ToLower(d.Currency)),
		Destination:   stripe.String(d.Account),
		TransferGroup: stripe.String(d.PayableID),
		Metadata:      map[string]string{MetaPayable: d.PayableID},
	}
	params.SetIdempotencyKey(d.IdempotencyKey)
	var tr *stripe.Transfer
	err := a.c.call(ctx, a.railID, func(ctx context.Context) error {
		var err error
		tr, err = a.c.api(a.key).V1Transfers.Create(ctx, params)
		return err
	})
	if reason, ok := refusal(err); ok {
		return rail.Result{Outcome: rail.Error, Reason: reason}, nil
	}
	if err != nil {
		return rail.Result{}, unavailable(err)
	}
	return rail.Result{Outcome: rail.Approved, Reference: tr.ID}, nil
}

func capabilityOf(acct *stripe.Account) stripe.AccountCapabilityStatus {
	if acct.Capabilities == nil {
		return ""
	}
	return acct.Capabilities.Transfers
}

// Ready reports whether a connected account can receive transfers.
func Ready(payoutsEnabled bool, transfers string) bool {
	return payoutsEnabled || transfers == string(stripe.AccountCapabilityStatusActive)
}
