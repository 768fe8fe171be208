package app

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// MarkSettled records an out-of-band settlement with an optional reference
// (at most 191 characters): mark-paid of a pending or failed receivable
// (payment_method out_of_band), mark-disbursed of a pending,
// destination_selected or failed payable. It emits receivable.paid or
// payable.disbursed, and <domain>.updated.
func (a *App) MarkSettled(ctx context.Context, scope Scope, d txn.Direction, id string, reference *string) (txn.Item, error) {
	ref, err := checkReference(reference)
	if err != nil {
		return txn.Item{}, err
	}
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		now := a.Now()
		own := evPaid
		if d == txn.Payable {
			if err := move(it, txn.MarkDisbursed); err != nil {
				return err
			}
			it.DisbursedAt, own = &now, evDisbursed
		} else {
			if err := move(it, txn.MarkPaid); err != nil {
				return err
			}
			method := txn.MethodOutOfBand
			it.PaidAt, it.PaymentMethod = &now, &method
		}
		it.Reference, it.FailureReason = ref, nil
		if err := stopWork(ctx, tx, *it); err != nil {
			return err
		}
		return a.save(ctx, tx, it, own)
	})
}

func checkReference(s *string) (*string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*s)
	if utf8.RuneCountInString(v) > txn.MaxReferenceLength {
		return nil, verr.Field("reference", fmt.Sprintf("The reference field must not be greater than %d characters.", txn.MaxReferenceLength))
	}
	return &v, nil
}
