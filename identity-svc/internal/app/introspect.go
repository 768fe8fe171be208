package app

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/authz"
)

// Introspection is a valid token's identity and an internal JWT carrying it.
type Introspection struct {
	TenantID               string
	TokenID                int64
	Abilities              []string
	Flags                  authz.Flags
	Limits                 authz.Limits
	InternalToken          string
	InternalTokenExpiresAt time.Time
}

// Introspect resolves a presented token. Every refusal (malformed, unknown,
// wrong secret, revoked, expired) wraps token.ErrMalformed, ErrInvalid,
// ErrRevoked or ErrExpired; callers answer all of them the same way.
func (a *App) Introspect(ctx context.Context, presented string) (Introspection, error) {
	id, secret, err := token.Parse(presented)
	if err != nil {
		return Introspection{}, err
	}
	now := a.now()
	tok, ten, err := a.store.Introspect(ctx, id, now, func(t token.Token) error { return t.Check(secret, now) })
	if err != nil {
		return Introspection{}, fmt.Errorf("introspecting: %w", err)
	}
	claims := tenantClaims(ten, tok.Abilities)
	claims.TokenID = tok.ID
	claims.Subject = strconv.FormatInt(tok.ID, 10)
	// The internal token (and every cache keyed on it) must not outlive the
	// API token it stands for.
	ttl := a.tokenTTL
	if tok.ExpiresAt != nil && tok.ExpiresAt.Sub(now) < ttl {
		ttl = tok.ExpiresAt.Sub(now)
	}
	signed, expires, err := a.signer.Sign(claims, ttl)
	if err != nil {
		return Introspection{}, fmt.Errorf("signing internal token: %w", err)
	}
	return Introspection{
		TenantID:               ten.ID,
		TokenID:                tok.ID,
		Abilities:              tok.Abilities,
		Flags:                  claims.Flags,
		Limits:                 claims.Limits,
		InternalToken:          signed,
		InternalTokenExpiresAt: expires,
	}, nil
}

// tenantClaims are the claims every internal token of the tenant carries:
// the abilities granted, the tenant's flags, effective limits, region and
// currency.
func tenantClaims(ten tenant.Tenant, abilities []string) authz.Claims {
	return authz.Claims{
		TenantID:  ten.ID,
		Abilities: abilities,
		Flags:     wire.Flags(ten.Flags),
		Limits:    wire.Limits(ten.Limits.Effective()),
		Region:    ten.DefaultRegion,
		Currency:  ten.DefaultCurrency,
	}
}
