package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Preview is what the AI gateway shows before a draft is confirmed.
type Preview struct {
	RecipientName   string
	PhoneLast4      string
	AmountFormatted string
	MessagePreview  string
	ExpiresAt       time.Time
}

// draftLink stands for the link in a message preview: no link exists
// before the draft is confirmed.
const draftLink = "[secure link]"

// Prepare stores a draft receivable or payable for the AI gateway: nothing
// is sent; an unconfirmed draft expires after 24 hours. Its input is the
// single-create body, send_at included (kept for the confirmation). An
// amount above the tenant's AI guardrails is an *AILimitError.
func (a *App) Prepare(ctx context.Context, scope Scope, d txn.Direction, in txn.Input) (txn.Item, Preview, error) {
	var out txn.Item
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		defs, err := tx.AllDefinitions(ctx)
		if err != nil {
			return err
		}
		now := a.Now()
		f, err := txn.ValidateCreate(in, txn.Rules{Now: now, DefaultCurrency: scope.Currency, Definitions: fielddef.NewSet(defs)})
		if err != nil {
			return err
		}
		if err := checkAILimits(ctx, tx, scope, f.Amount, now, false); err != nil {
			return err
		}
		contact, err := a.resolve(ctx, scope, in)
		if err != nil {
			return err
		}
		it := newItem(d, contact, f, now)
		it.Status = txn.Draft
		out, err = a.insert(ctx, tx, it)
		return err
	})
	if err != nil {
		return txn.Item{}, Preview{}, err
	}
	return out, a.preview(out), nil
}

func (a *App) preview(it txn.Item) Preview {
	name := it.Recipient.FirstName
	if it.Recipient.LastName != "" {
		name += " " + it.Recipient.LastName
	}
	return Preview{RecipientName: name, PhoneLast4: phone.Last4(it.Recipient.Phone),
		AmountFormatted: txn.FormatAmount(it.Amount, it.Currency), MessagePreview: linkMessage(it, draftLink),
		ExpiresAt: it.CreatedAt.Add(draftTTL)}
}

// Confirm sends or schedules a draft (AI-gateway confirm): pending with its
// link sent, or scheduled when its send_at (sendAt when given, RFC 3339,
// in the future) is in the future. A non-draft is 422 invalid_transition.
// The tenant's AI guardrails are checked again under its AI day lock, and
// the confirm is recorded in the day's sum in the same transaction.
func (a *App) Confirm(ctx context.Context, scope Scope, transactionID string, sendAt *string) (txn.Item, error) {
	if err := checkID(transactionID); err != nil {
		return txn.Item{}, err
	}
	var out txn.Item
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		it, err := tx.LockByTransaction(ctx, transactionID)
		if err != nil {
			return err
		}
		now := a.Now()
		if it.Status == txn.Draft {
			if err := checkAILimits(ctx, tx, scope, it.Amount, now, true); err != nil {
				return err
			}
		}
		if err := a.confirm(ctx, tx, &it, sendAt); err != nil {
			return err
		}
		out = it
		return tx.RecordAIConfirmation(ctx, it.TransactionID, it.Amount, now)
	})
	return out, err
}

func (a *App) confirm(ctx context.Context, tx *store.Tx, it *txn.Item, sendAt *string) error {
	now := a.Now()
	if sendAt != nil {
		t, err := time.Parse(time.RFC3339Nano, *sendAt)
		if err != nil || !t.After(now) {
			return verr.Field("send_at", "The send_at field must be a date after now.")
		}
		t = t.UTC().Truncate(time.Microsecond)
		it.SendAt = &t
	}
	scheduled := it.SendAt != nil && it.SendAt.After(now)
	action := txn.Confirm
	if scheduled {
		action = txn.ConfirmScheduled
	}
	if err := move(it, action); err != nil {
		return err
	}
	if err := tx.Unschedule(ctx, it.ID, store.KindDraftExpiry); err != nil {
		return err
	}
	if scheduled {
		if err := tx.Schedule(ctx, *it, store.KindSend, *it.SendAt); err != nil {
			return err
		}
	} else if err := a.sendLink(ctx, tx, it); err != nil {
		return err
	}
	return a.save(ctx, tx, it)
}

// Lookup returns the live item a reference names (a transaction, receivable
// or payable id), for the AI gateway's status and the confirm gate.
func (a *App) Lookup(ctx context.Context, scope Scope, ref string) (txn.Item, error) {
	if err := checkID(ref); err != nil {
		return txn.Item{}, err
	}
	var it txn.Item
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		it, err = tx.ItemByReference(ctx, ref)
		return err
	})
	return it, err
}
