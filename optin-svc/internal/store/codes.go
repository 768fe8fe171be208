package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

const codeColumns = `id, tenant_id, code, name, is_live, is_default, double_opt_in, scan_count, opt_in_count,
	created_at, updated_at`

func scanCode(row pgx.Row) (optin.Code, error) {
	var c optin.Code
	err := row.Scan(&c.ID, &c.TenantID, &c.Code, &c.Name, &c.IsLive, &c.IsDefault, &c.DoubleOptIn,
		&c.ScanCount, &c.OptInCount, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// HasDefaultCode reports whether the tenant has a default code.
func (t *Tx) HasDefaultCode(ctx context.Context) (bool, error) {
	var found bool
	if err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM opt_in_codes WHERE is_default)`).Scan(&found); err != nil {
		return false, fmt.Errorf("checking default code: %w", err)
	}
	return found, nil
}

// InsertCode stores a code and its public route; a default code first
// takes the default mark from the tenant's previous one. A public code that
// is taken already is ErrDuplicateCode.
func (t *Tx) InsertCode(ctx context.Context, c optin.Code) error {
	if c.IsDefault {
		if _, err := t.tx.Exec(ctx, `UPDATE opt_in_codes SET is_default = false, updated_at = $1 WHERE is_default`,
			c.CreatedAt); err != nil {
			return fmt.Errorf("clearing the default code: %w", err)
		}
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO opt_in_codes (`+codeColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, $8, $9)`,
		c.ID, t.tenantID, c.Code, c.Name, c.IsLive, c.IsDefault, c.DoubleOptIn, c.CreatedAt, c.UpdatedAt)
	if pgdb.IsUniqueViolation(err, "opt_in_codes_code_key") {
		return optin.ErrDuplicateCode
	}
	if err != nil {
		return fmt.Errorf("inserting opt-in code: %w", err)
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO landing_codes (code, tenant_id, opt_in_code_id) VALUES ($1, $2, $3)`,
		c.Code, t.tenantID, c.ID)
	if err != nil {
		return fmt.Errorf("routing opt-in code: %w", err)
	}
	return nil
}

// Code returns a code by id (ErrNotFound when none).
func (t *Tx) Code(ctx context.Context, id string) (optin.Code, error) {
	c, err := scanCode(t.tx.QueryRow(ctx, `SELECT `+codeColumns+` FROM opt_in_codes WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return optin.Code{}, optin.ErrNotFound
	}
	if err != nil {
		return optin.Code{}, fmt.Errorf("reading opt-in code: %w", err)
	}
	return c, nil
}

// ListCodes returns one page of the tenant's codes, the default first,
// then newest first; live filters on is_live when not nil. The statements
// and the page are built as every list's (listtotal.Where, Window), the
// total counted exactly: a tenant's codes are made by hand.
func (t *Tx) ListCodes(ctx context.Context, live *bool, limit, offset int) ([]optin.Code, int, error) {
	var where listtotal.Where
	if live != nil {
		where.And("is_live = $%d", *live)
	}
	var total int
	if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM opt_in_codes`+where.SQL(), where.Args()...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting opt-in codes: %w", err)
	}
	w := listtotal.Exact(total).Window(limit, offset)
	page := w.Page(`SELECT `+codeColumns+` FROM opt_in_codes`+where.SQL(), "is_default DESC, created_at DESC, id DESC", where.Next())
	rows, err := t.tx.Query(ctx, page, w.Args(where.Args())...)
	if err != nil {
		return nil, 0, fmt.Errorf("listing opt-in codes: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Code, error) { return scanCode(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("listing opt-in codes: %w", err)
	}
	return list, total, nil
}

// CountScan adds one scan to a code.
func (t *Tx) CountScan(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `UPDATE opt_in_codes SET scan_count = scan_count + 1 WHERE id = $1`, id); err != nil {
		return fmt.Errorf("counting scan: %w", err)
	}
	return nil
}

// CountOptIn adds one confirmed opt-in to a code.
func (t *Tx) CountOptIn(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `UPDATE opt_in_codes SET opt_in_count = opt_in_count + 1 WHERE id = $1`, id); err != nil {
		return fmt.Errorf("counting opt-in: %w", err)
	}
	return nil
}

// LandingCode returns the tenant and code id of a public code (ErrNotFound
// when none).
func (s *Store) LandingCode(ctx context.Context, code string) (tenantID, codeID string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT tenant_id, opt_in_code_id FROM landing_codes WHERE code = $1`, code).
		Scan(&tenantID, &codeID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", optin.ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("reading landing code: %w", err)
	}
	return tenantID, codeID, nil
}
