package app

import (
	"context"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/libs/listtotal"
)

// Viewer is who reads: the tenant and the batch types it may view.
type Viewer struct {
	TenantID string
	CanView  func(batch.Type) bool
}

// GetBatch returns the tenant's batch id; batch.ErrNotFound when it has
// none, batch.ErrForbidden when the viewer may not view its type.
func (a *App) GetBatch(ctx context.Context, v Viewer, id string) (batch.Header, error) {
	var h batch.Header
	err := a.d.Store.Read(ctx, v.TenantID, func(tx *store.Tx) error {
		var err error
		h, err = tx.Batch(ctx, id)
		return err
	})
	if err != nil {
		return batch.Header{}, err
	}
	if !v.CanView(h.Type) {
		return batch.Header{}, batch.ErrForbidden
	}
	return h, nil
}

// ListQuery selects batches: Type empty means every type the viewer may
// view; Status empty means any.
type ListQuery struct {
	Type          batch.Type
	Status        batch.Status
	Limit, Offset int
}

// ListBatches returns a page of the tenant's batches, newest first, and
// the total. batch.ErrForbidden when the viewer may view none of the
// types asked for.
func (a *App) ListBatches(ctx context.Context, v Viewer, q ListQuery) ([]batch.Header, listtotal.Total, error) {
	var types []batch.Type
	for _, t := range batch.Types() {
		if (q.Type == "" || q.Type == t) && v.CanView(t) {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil, listtotal.Total{}, batch.ErrForbidden
	}
	var out []batch.Header
	var total listtotal.Total
	err := a.d.Store.Read(ctx, v.TenantID, func(tx *store.Tx) error {
		var err error
		out, total, err = tx.ListBatches(ctx, store.ListFilter{Types: types, Status: q.Status, Limit: q.Limit, Offset: q.Offset})
		return err
	})
	return out, total, err
}

// ListRowErrors returns a page of the batch's row errors in row order and
// the total, after the checks of GetBatch.
func (a *App) ListRowErrors(ctx context.Context, v Viewer, id string, limit, offset int) ([]batch.RowError, listtotal.Total, error) {
	var out []batch.RowError
	var total listtotal.Total
	err := a.d.Store.Read(ctx, v.TenantID, func(tx *store.Tx) error {
		h, err := tx.Batch(ctx, id)
		if err != nil {
			return err
		}
		if !v.CanView(h.Type) {
			return batch.ErrForbidden
		}
		out, total, err = tx.RowErrors(ctx, id, limit, offset)
		return err
	})
	return out, total, err
}
