package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/pgdb"
)

// tenantColumns lists the columns tenantFields scans, qualified with the
// table name or alias a (so they can be joined with tokens).
func tenantColumns(a string) string {
	return strings.ReplaceAll(`$.id, $.name, $.default_currency, $.default_region, coalesce($.sms_number, ''),
	$.ai_gateway, $.opt_in, coalesce($.api_requests_per_minute, 0),
	coalesce($.batch_submissions_per_minute, 0), coalesce($.batches_in_flight, 0),
	coalesce($.ai_max_amount, 0), coalesce($.ai_daily_amount, 0),
	$.created_at, $.updated_at`, "$", a)
}

const smsNumberKey = "tenants_sms_number_key"

func scanTenant(row pgx.Row) (tenant.Tenant, error) {
	var t tenant.Tenant
	err := row.Scan(tenantFields(&t)...)
	return t, err
}

// tenantFields are the scan destinations of tenantColumns.
func tenantFields(t *tenant.Tenant) []any {
	return []any{&t.ID, &t.Name, &t.DefaultCurrency, &t.DefaultRegion, &t.SMSNumber,
		&t.Flags.AIGateway, &t.Flags.OptIn, &t.Limits.APIRequestsPerMinute,
		&t.Limits.BatchSubmissionsPerMinute, &t.Limits.BatchesInFlight,
		&t.Limits.AIMaxAmount, &t.Limits.AIDailyAmount,
		&t.CreatedAt, &t.UpdatedAt}
}

// tenantArgs are the values of the mutable columns, in the order the
// insert and update statements use ($2..$12).
func tenantArgs(t tenant.Tenant) []any {
	return []any{t.Name, t.DefaultCurrency, t.DefaultRegion, t.SMSNumber,
		t.Flags.AIGateway, t.Flags.OptIn, t.Limits.APIRequestsPerMinute,
		t.Limits.BatchSubmissionsPerMinute, t.Limits.BatchesInFlight,
		t.Limits.AIMaxAmount, t.Limits.AIDailyAmount}
}

// CreateTenant inserts a tenant and announces it with tenant.updated.
func (s *Store) CreateTenant(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	var created tenant.Tenant
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		args := append([]any{t.ID}, tenantArgs(t)...)
		args = append(args, t.CreatedAt)
		var err error
		created, err = scanTenant(tx.QueryRow(ctx, `
			INSERT INTO tenants (id, name, default_currency, default_region, sms_number,
				ai_gateway, opt_in, api_requests_per_minute, batch_submissions_per_minute,
				batches_in_flight, ai_max_amount, ai_daily_amount, created_at, updated_at)
			VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, nullif($8, 0), nullif($9, 0),
				nullif($10, 0), nullif($11::bigint, 0), nullif($12::bigint, 0), $13, $13)
			RETURNING `+tenantColumns("tenants"), args...))
		if err != nil {
			return tenantWriteError(err)
		}
		// The roles are tenant-scoped rows: the scope is set for the rest
		// of this transaction.
		if _, err := tx.Exec(ctx, `SELECT set_config('app.tenant_id', $1, true)`, created.ID); err != nil {
			return fmt.Errorf("scoping tenant: %w", err)
		}
		if err := insertDefaultRoles(ctx, tx, created.ID, created.CreatedAt); err != nil {
			return err
		}
		return publish(ctx, tx, events.TypeTenantUpdated, created.ID, wire.Tenant(created))
	})
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("creating tenant: %w", err)
	}
	return created, nil
}

// GetTenant reads a tenant; tenant.ErrNotFound when there is none.
func (s *Store) GetTenant(ctx context.Context, id string) (tenant.Tenant, error) {
	t, err := scanTenant(s.pool.QueryRow(ctx, `SELECT `+tenantColumns("tenants")+` FROM tenants WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return tenant.Tenant{}, tenant.ErrNotFound
	}
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("reading tenant: %w", err)
	}
	return t, nil
}

// ListTenants reads a page of tenants, newest first, and the total count.
func (s *Store) ListTenants(ctx context.Context, limit, offset int) ([]tenant.Tenant, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM tenants`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting tenants: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+tenantColumns("tenants")+` FROM tenants
		ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing tenants: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tenant.Tenant, error) { return scanTenant(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("listing tenants: %w", err)
	}
	return list, total, nil
}

// UpdateTenant loads the tenant under a row lock, lets change decide the new
// state, writes it and announces it with tenant.updated, in one transaction.
func (s *Store) UpdateTenant(ctx context.Context, id string, change func(tenant.Tenant) (tenant.Tenant, error)) (tenant.Tenant, error) {
	var updated tenant.Tenant
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		current, err := scanTenant(tx.QueryRow(ctx, `SELECT `+tenantColumns("tenants")+` FROM tenants WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return tenant.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("locking tenant: %w", err)
		}
		next, err := change(current)
		if err != nil {
			return err
		}
		args := append([]any{id}, tenantArgs(next)...)
		args = append(args, next.UpdatedAt)
		updated, err = scanTenant(tx.QueryRow(ctx, `
			UPDATE tenants SET name = $2, default_currency = $3, default_region = $4,
				sms_number = nullif($5, ''), ai_gateway = $6, opt_in = $7,
				api_requests_per_minute = nullif($8, 0), batch_submissions_per_minute = nullif($9, 0),
				batches_in_flight = nullif($10, 0), ai_max_amount = nullif($11::bigint, 0),
				ai_daily_amount = nullif($12::bigint, 0), updated_at = $13
			WHERE id = $1
			RETURNING `+tenantColumns("tenants"), args...))
		if err != nil {
			return tenantWriteError(err)
		}
		return publish(ctx, tx, events.TypeTenantUpdated, updated.ID, wire.Tenant(updated))
	})
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("updating tenant: %w", err)
	}
	return updated, nil
}

func tenantWriteError(err error) error {
	if pgdb.IsUniqueViolation(err, smsNumberKey) {
		return tenant.ErrSMSNumberTaken
	}
	return fmt.Errorf("writing tenant: %w", err)
}

// TenantBySMSNumber reads the tenant whose SMS sender number is number;
// tenant.ErrNotFound when there is none.
func (s *Store) TenantBySMSNumber(ctx context.Context, number string) (tenant.Tenant, error) {
	t, err := scanTenant(s.pool.QueryRow(ctx, `SELECT `+tenantColumns("tenants")+` FROM tenants WHERE sms_number = $1`, number))
	if errors.Is(err, pgx.ErrNoRows) {
		return tenant.Tenant{}, tenant.ErrNotFound
	}
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("reading tenant by sms number: %w", err)
	}
	return t, nil
}
