package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetTenantName records the tenant's display name as of updatedAt, unless a
// newer one is recorded already (events may arrive late or twice).
func (t *Tx) SetTenantName(ctx context.Context, name string, updatedAt time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO tenants (tenant_id, display_name, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id) DO UPDATE SET display_name = EXCLUDED.display_name, updated_at = EXCLUDED.updated_at
 WHERE tenants.updated_at <= EXCLUDED.updated_at`, t.tenantID, name, updatedAt)
	if err != nil {
		return fmt.Errorf("recording tenant name: %w", err)
	}
	return nil
}

// TenantName returns the tenant's display name, or "" when no tenant event
// has told it yet.
func (t *Tx) TenantName(ctx context.Context) (string, error) {
	var name string
	err := t.tx.QueryRow(ctx, `SELECT display_name FROM tenants WHERE tenant_id = $1`, t.tenantID).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading tenant name: %w", err)
	}
	return name, nil
}
