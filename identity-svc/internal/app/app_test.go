package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func setup(t *testing.T) (*app.App, *store.Store, *authz.Signer, tenant.Tenant) {
	t.Helper()
	s := store.New(testenv.NewDB(t).Pool)
	signer, _ := testenv.Signer(t)
	a := app.New(s, signer, time.Minute)
	ten, err := a.CreateTenant(context.Background(), tenant.Patch{
		Name: tenant.Of("Acme"), DefaultCurrency: tenant.Of("EUR"), DefaultRegion: tenant.Of("FR"),
		Flags: tenant.FlagsPatch{AIGateway: tenant.Of(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, s, signer, ten
}

func TestIntrospectClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, signer, ten := setup(t)
	minted, err := a.CreateToken(ctx, ten.ID, token.Mint{Name: "ci", Abilities: []string{"api:view-contact"}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := a.Introspect(ctx, minted.Plaintext)
	if err != nil {
		t.Fatal(err)
	}
	v, err := authz.NewStaticVerifier(signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(ctx, in.InternalToken)
	if err != nil {
		t.Fatal(err)
	}
	if c.TenantID != ten.ID || c.TokenID != minted.Token.ID || c.Region != "FR" || c.Currency != "EUR" ||
		!c.Flags.AIGateway || c.Limits.APIRequestsPerMinute != 60 || c.Issuer != authz.Issuer {
		t.Errorf("claims = %+v", c)
	}
}

func TestInternalTokenNeverOutlivesTheAPIToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, s, _, ten := setup(t)
	expires := time.Now().Add(10 * time.Second).UTC().Truncate(time.Microsecond)
	secret := "s3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3t"
	tok, err := s.CreateToken(ctx, ten.ID, token.Mint{Name: "short", Abilities: []string{"api:view-contact"}, ExpiresAt: &expires},
		token.Hash(secret), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	in, err := a.Introspect(ctx, token.Format(tok.ID, secret))
	if err != nil {
		t.Fatal(err)
	}
	// JWT exp has second precision: allow the rounding, never a full TTL.
	if in.InternalTokenExpiresAt.After(expires.Add(time.Second)) {
		t.Errorf("internal token expires %v, after the API token's %v", in.InternalTokenExpiresAt, expires)
	}
}

func TestIntrospectRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, s, _, ten := setup(t)
	secret := "s3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3t"
	past := time.Now().Add(-time.Minute)
	expired, err := s.CreateToken(ctx, ten.ID, token.Mint{Name: "old", Abilities: []string{"api:view-contact"}, ExpiresAt: &past},
		token.Hash(secret), time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := a.CreateToken(ctx, ten.ID, token.Mint{Name: "gone", Abilities: []string{"api:view-contact"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeToken(ctx, ten.ID, revoked.Token.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, presented string
		want            error
	}{
		{"expired", token.Format(expired.ID, secret), token.ErrExpired},
		{"revoked", revoked.Plaintext, token.ErrRevoked},
		{"wrong secret", token.Format(revoked.Token.ID, secret), token.ErrInvalid},
		{"unknown id", token.Format(expired.ID+1000, secret), token.ErrInvalid},
		{"malformed", "pl_1|short", token.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Introspect(ctx, tt.presented); !errors.Is(err, tt.want) {
				t.Errorf("Introspect() = %v, want %v", err, tt.want)
			}
		})
	}
}
