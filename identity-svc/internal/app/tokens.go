package app

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/ids"
)

// MintedToken is a new token with its plaintext, which exists only here:
// the store keeps the secret's hash.
type MintedToken struct {
	Token     token.Token
	Plaintext string
}

// CreateToken mints a token for a tenant. Every ability must be known; the
// wildcard is refused.
func (a *App) CreateToken(ctx context.Context, tenantID string, m token.Mint) (MintedToken, error) {
	if !ids.Valid(tenantID) {
		return MintedToken{}, tenant.ErrNotFound
	}
	now := a.now()
	if fields := m.Validate(now, a.known); fields != nil {
		return MintedToken{}, &ValidationError{Fields: fields}
	}
	secret, err := a.newSecret()
	if err != nil {
		return MintedToken{}, fmt.Errorf("creating token secret: %w", err)
	}
	t, err := a.store.CreateToken(ctx, tenantID, m.Normalize(), token.Hash(secret), now)
	if err != nil {
		return MintedToken{}, fmt.Errorf("creating token: %w", err)
	}
	return MintedToken{Token: t, Plaintext: token.Format(t.ID, secret)}, nil
}

// ListTokens reads a page of a tenant's tokens, newest first.
func (a *App) ListTokens(ctx context.Context, tenantID string, p Page) ([]token.Token, int, error) {
	if _, err := a.GetTenant(ctx, tenantID); err != nil {
		return nil, 0, err
	}
	list, total, err := a.store.ListTokens(ctx, tenantID, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing tokens: %w", err)
	}
	return list, total, nil
}

// RevokeToken revokes a tenant's token; token.ErrNotFound when the tenant
// has no such token (an unknown tenant has none).
func (a *App) RevokeToken(ctx context.Context, tenantID string, id int64) error {
	if !ids.Valid(tenantID) || id <= 0 {
		return token.ErrNotFound
	}
	if err := a.store.RevokeToken(ctx, tenantID, id, a.now()); err != nil {
		return fmt.Errorf("revoking token: %w", err)
	}
	return nil
}
