package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// Tenant is the local copy of what optin-svc needs of an identity-svc tenant.
type Tenant struct {
	ID            string
	Name          string
	SMSNumber     string // "" when the tenant has none
	DefaultRegion string
	// OptIn is the tenant's opt_in flag (the opt-in capability).
	OptIn bool
	// UpdatedAt is the tenant's updated_at at identity-svc: a copy never
	// goes back to an older state.
	UpdatedAt time.Time
}

// ApplyTenant stores a tenant's state unless a newer one is stored. Sender
// numbers are unique: when another tenant holds the number in an older
// state, it loses it (identity-svc let it go); when in a newer state, the
// incoming one is the stale claim and is stored without the number.
func (s *Store) ApplyTenant(ctx context.Context, t Tenant) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if t.SMSNumber != "" {
			var holder string
			var holderAt time.Time
			err := tx.QueryRow(ctx, `SELECT tenant_id, source_updated_at FROM tenants
				WHERE sms_number = $1 AND tenant_id <> $2 FOR UPDATE`, t.SMSNumber, t.ID).Scan(&holder, &holderAt)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
			case err != nil:
				return fmt.Errorf("reading sender number holder: %w", err)
			case holderAt.After(t.UpdatedAt):
				t.SMSNumber = ""
			default:
				if _, err := tx.Exec(ctx, `UPDATE tenants SET sms_number = NULL WHERE tenant_id = $1`, holder); err != nil {
					return fmt.Errorf("releasing sender number: %w", err)
				}
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO tenants (tenant_id, name, sms_number, default_region, opt_in, source_updated_at)
			VALUES ($1, $2, nullif($3, ''), $4, $5, $6)
			ON CONFLICT (tenant_id) DO UPDATE SET name = EXCLUDED.name, sms_number = EXCLUDED.sms_number,
				default_region = EXCLUDED.default_region, opt_in = EXCLUDED.opt_in,
				source_updated_at = EXCLUDED.source_updated_at
			WHERE tenants.source_updated_at <= EXCLUDED.source_updated_at`,
			t.ID, t.Name, t.SMSNumber, t.DefaultRegion, t.OptIn, t.UpdatedAt)
		if err != nil {
			return fmt.Errorf("storing tenant: %w", err)
		}
		return nil
	})
}

// Tenant returns the local copy of a tenant (ErrNotFound when none).
func (s *Store) Tenant(ctx context.Context, id string) (Tenant, error) {
	return s.tenantWhere(ctx, `tenant_id = $1`, id)
}

// TenantBySMSNumber returns the tenant whose sender number is e164
// (ErrNotFound when none).
func (s *Store) TenantBySMSNumber(ctx context.Context, e164 string) (Tenant, error) {
	return s.tenantWhere(ctx, `sms_number = $1`, e164)
}

func (s *Store) tenantWhere(ctx context.Context, cond string, arg string) (Tenant, error) {
	var t Tenant
	var number *string
	err := s.pool.QueryRow(ctx, `SELECT tenant_id, name, sms_number, default_region, opt_in, source_updated_at
		FROM tenants WHERE `+cond, arg).Scan(&t.ID, &t.Name, &number, &t.DefaultRegion, &t.OptIn, &t.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Tenant{}, optin.ErrNotFound
	}
	if err != nil {
		return Tenant{}, fmt.Errorf("reading tenant: %w", err)
	}
	if number != nil {
		t.SMSNumber = *number
	}
	return t, nil
}

// ConversationTenant returns the tenant that last wrote to a number from a
// sender number (ErrNotFound when none did).
func (s *Store) ConversationTenant(ctx context.Context, from, to string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT tenant_id FROM conversations WHERE from_phone = $1 AND to_phone = $2`,
		from, to).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", optin.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("reading conversation: %w", err)
	}
	return id, nil
}
