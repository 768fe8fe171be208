package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Route returns the tenant and direction of an item, for a hosted-page
// request that carries only the item's id (after its signature was
// verified). link_routes holds ids only and has no row-level security; the
// item itself is then read in the tenant's scope.
func (s *Store) Route(ctx context.Context, itemID string) (tenantID string, d txn.Direction, err error) {
	var dir string
	err = s.pool.QueryRow(ctx, "SELECT tenant_id, direction FROM link_routes WHERE item_id = $1", itemID).Scan(&tenantID, &dir)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", txn.ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("reading link route: %w", err)
	}
	return tenantID, txn.Direction(dir), nil
}
