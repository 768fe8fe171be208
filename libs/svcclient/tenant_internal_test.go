package svcclient

import (
	"context"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/breaker"
)

// signed returns a token of tenant holding every ability (the longest
// internal token), and a context carrying it as authz.Middleware does.
func signed(tb testing.TB, tenant string) (string, context.Context) {
	tb.Helper()
	seed, err := authz.GenerateSeed()
	if err != nil {
		tb.Fatal(err)
	}
	s, err := authz.NewSigner(seed)
	if err != nil {
		tb.Fatal(err)
	}
	var abilities []string
	for _, g := range authz.Groups() {
		abilities = append(abilities, g.Abilities...)
	}
	claims := authz.Claims{TenantID: tenant, TokenID: 7, Abilities: abilities}
	token, _, err := s.Sign(claims, time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	return token, authz.WithToken(authz.WithClaims(context.Background(), &claims), token)
}

func TestTenantOfMatchesTheTokensClaim(t *testing.T) {
	t.Parallel()
	token, ctx := signed(t, "tenant-a")
	other, _ := signed(t, "tenant-b")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		auth string
		want string
	}{
		{"the request's own token", ctx, token, "tenant-a"},
		{"with Bearer", ctx, "Bearer " + token, "tenant-a"},
		{"another token than the request's", ctx, other, "tenant-b"},
		{"no claims in the context", context.Background(), token, "tenant-a"},
		{"no token", ctx, "", ""},
	} {
		if got := tenantOf(tc.ctx, tc.auth); got != tc.want || got != breaker.TenantOf(tc.auth) {
			t.Errorf("%s: tenantOf = %q, want %q (breaker.TenantOf %q)", tc.name, got, tc.want, breaker.TenantOf(tc.auth))
		}
	}
}

// BenchmarkTenantOf: the breaker key of a call passing the request's own
// token on, from the verified claims and by decoding the token.
func BenchmarkTenantOf(b *testing.B) {
	token, ctx := signed(b, "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
	b.Run("claims", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = tenantOf(ctx, token)
		}
	})
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = breaker.TenantOf(token)
		}
	})
}
