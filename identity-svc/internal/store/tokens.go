package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/tenancy"
)

// tokenColumns lists the columns tokenFields scans, qualified with the table
// name or alias a.
func tokenColumns(a string) string {
	return strings.ReplaceAll(`$.id, $.tenant_id, $.name, $.abilities, $.secret_sha256, $.expires_at,
	$.revoked_at, $.last_used_at, $.created_at`, "$", a)
}

const routeTenantFKey = "token_routes_tenant_id_fkey"

func scanToken(row pgx.Row) (token.Token, error) {
	var t token.Token
	err := row.Scan(tokenFields(&t)...)
	return t, err
}

// tokenFields are the scan destinations of tokenColumns.
func tokenFields(t *token.Token) []any {
	return []any{&t.ID, &t.TenantID, &t.Name, &t.Abilities, &t.SecretSHA256,
		&t.ExpiresAt, &t.RevokedAt, &t.LastUsedAt, &t.CreatedAt}
}

// CreateToken reserves a token number in the routing table and stores the
// token (only its secret's hash) in the tenant's scope, in one transaction.
// The number is known only once the route exists, so the caller's secret is
// independent of it. tenant.ErrNotFound when the tenant does not exist.
func (s *Store) CreateToken(ctx context.Context, tenantID string, m token.Mint, secretHash []byte, now time.Time) (token.Token, error) {
	var created token.Token
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO token_routes (tenant_id, created_at) VALUES ($1, $2) RETURNING id`,
			tenantID, now).Scan(&id)
		if isForeignKeyViolation(err, routeTenantFKey) {
			return tenant.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("reserving token number: %w", err)
		}
		created, err = scanToken(tx.QueryRow(ctx, `
			INSERT INTO tokens (id, tenant_id, name, abilities, secret_sha256, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING `+tokenColumns("tokens"), id, tenantID, m.Name, m.Abilities, secretHash, m.ExpiresAt, now))
		if err != nil {
			return fmt.Errorf("inserting token: %w", err)
		}
		return nil
	})
	if err != nil {
		return token.Token{}, fmt.Errorf("creating token: %w", err)
	}
	return created, nil
}

// ListTokens reads a page of the tenant's tokens, newest first, and the
// total count.
func (s *Store) ListTokens(ctx context.Context, tenantID string, limit, offset int) ([]token.Token, int, error) {
	var (
		list  []token.Token
		total int
	)
	err := tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM tokens`).Scan(&total); err != nil {
			return fmt.Errorf("counting tokens: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+tokenColumns("tokens")+` FROM tokens
			ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`, limit, offset)
		if err != nil {
			return fmt.Errorf("querying tokens: %w", err)
		}
		list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (token.Token, error) { return scanToken(r) })
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("listing tokens: %w", err)
	}
	return list, total, nil
}

// RevokeToken revokes one of the tenant's tokens and writes token.revoked
// to the outbox in the same transaction. Revoking a revoked token changes
// nothing and publishes nothing; token.ErrNotFound when the tenant has no
// such token.
func (s *Store) RevokeToken(ctx context.Context, tenantID string, id int64, now time.Time) error {
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, id, now)
		if err != nil {
			return fmt.Errorf("revoking token: %w", err)
		}
		if tag.RowsAffected() == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tokens WHERE id = $1)`, id).Scan(&exists); err != nil {
				return fmt.Errorf("looking up token: %w", err)
			}
			if !exists {
				return token.ErrNotFound
			}
			return nil
		}
		return publish(ctx, tx, events.TypeTokenRevoked, tenantID, events.TokenRevoked{TokenID: id, TenantID: tenantID})
	})
	if err != nil {
		return fmt.Errorf("revoking token %d: %w", id, err)
	}
	return nil
}

// Introspect resolves a token number to its tenant through the routing
// table, then, in that tenant's scope, loads the token and its tenant and
// lets check decide whether the presented token is valid. When it is and
// last_used_at is stale (token.TouchInterval), last_used_at is set to now:
// at most one write per token per interval, however often it is used.
// token.ErrInvalid when the number is unknown.
func (s *Store) Introspect(ctx context.Context, id int64, now time.Time, check func(token.Token) error) (token.Token, tenant.Tenant, error) {
	var tenantID string
	err := s.pool.QueryRow(ctx, `SELECT tenant_id FROM token_routes WHERE id = $1`, id).Scan(&tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return token.Token{}, tenant.Tenant{}, token.ErrInvalid
	}
	if err != nil {
		return token.Token{}, tenant.Tenant{}, fmt.Errorf("routing token: %w", err)
	}
	var (
		tok token.Token
		ten tenant.Tenant
	)
	err = tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		row := tx.QueryRow(ctx, `SELECT `+tokenColumns("k")+`, `+tenantColumns("t")+`
			FROM tokens k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = $1`, id)
		err := row.Scan(append(tokenFields(&tok), tenantFields(&ten)...)...)
		if errors.Is(err, pgx.ErrNoRows) {
			return token.ErrInvalid
		}
		if err != nil {
			return fmt.Errorf("loading token: %w", err)
		}
		if err := check(tok); err != nil {
			return err
		}
		if !tok.NeedsTouch(now) {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE tokens SET last_used_at = $2
			WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
			id, now, now.Add(-token.TouchInterval))
		if err != nil {
			return fmt.Errorf("touching token: %w", err)
		}
		tok.LastUsedAt = &now
		return nil
	})
	if err != nil {
		return token.Token{}, tenant.Tenant{}, fmt.Errorf("introspecting token %d: %w", id, err)
	}
	return tok, ten, nil
}
