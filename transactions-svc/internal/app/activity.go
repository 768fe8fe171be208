package app

import (
	"context"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Activity is what happened to a receivable or payable: its state history
// and the SMS asked for it (those still kept, 7 days).
type Activity struct {
	Transitions []store.Transition
	Messages    []store.SentMessage
}

// Activity returns the activity of a live receivable or payable of the
// tenant; an unknown id is txn.ErrNotFound.
func (a *App) Activity(ctx context.Context, scope Scope, d txn.Direction, id string) (Activity, error) {
	if err := checkID(id); err != nil {
		return Activity{}, err
	}
	var out Activity
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		if _, err := tx.Item(ctx, d, id); err != nil {
			return err
		}
		var err error
		if out.Transitions, err = tx.Transitions(ctx, id); err != nil {
			return err
		}
		out.Messages, err = tx.ItemMessages(ctx, id)
		return err
	})
	return out, err
}

// Summary counts the tenant's live receivables or payables created at or
// after since and sums their amounts, per status and currency.
func (a *App) Summary(ctx context.Context, scope Scope, d txn.Direction, since time.Time) ([]store.StatusSum, error) {
	var out []store.StatusSum
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		out, err = tx.Summary(ctx, d, since)
		return err
	})
	return out, err
}
