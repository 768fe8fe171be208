package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Resend sends the item's link by SMS again (pending only): the live link,
// or a new one after a revoke. It emits notification.requested and
// <domain>.updated.
func (a *App) Resend(ctx context.Context, scope Scope, d txn.Direction, id string) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.Resend); err != nil {
			return err
		}
		if err := a.sendLink(ctx, tx, it); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
}

// RevokeLink makes the item's live link answer 410 link_revoked, without
// cancelling it (pending; for payables also destination_selected, which
// returns to pending with the destination cleared). A resend issues a new
// link. It emits <domain>.updated.
func (a *App) RevokeLink(ctx context.Context, scope Scope, d txn.Direction, id string) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, d, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.RevokeLink); err != nil {
			return err
		}
		a.revoke(it)
		if it.Direction == txn.Payable {
			it.Destination, it.FailureReason = nil, nil
		}
		if err := tx.Unschedule(ctx, it.ID, store.KindFollowUp); err != nil {
			return err
		}
		return a.save(ctx, tx, it)
	})
}

// revoke marks the item's link revoked now (a link not yet issued stays
// absent).
func (a *App) revoke(it *txn.Item) {
	if it.Link.ExpiresAt != nil && it.Link.RevokedAt == nil {
		now := a.Now()
		it.Link.RevokedAt = &now
	}
}

// VerifyPayer records that the tenant verified the payer of a pending
// receivable (payer_verified_at); the state is kept. It emits
// receivable.updated.
func (a *App) VerifyPayer(ctx context.Context, scope Scope, id string) (txn.Item, error) {
	return a.change(ctx, scope.Tx, scope.TenantID, txn.Receivable, id, func(tx *store.Tx, it *txn.Item) error {
		if err := move(it, txn.VerifyPayer); err != nil {
			return err
		}
		now := a.Now()
		it.PayerVerifiedAt = &now
		return a.save(ctx, tx, it)
	})
}
