package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// introspect calls the introspection route (no admin token: it is internal).
func (e *env) introspect(t *testing.T, tok string) response {
	t.Helper()
	body, err := json.Marshal(map[string]string{"token": tok})
	if err != nil {
		t.Fatal(err)
	}
	return e.callWith(t, http.MethodPost, "/internal/v1/introspect", string(body), "")
}

func TestIntrospectReturnsAVerifiableInternalToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme","flags":{"opt_in":true},"limits":{"batches_in_flight":4}}`)
	tokenID, plaintext := e.createToken(t, tenantID, `{"name":"ci","abilities":["api:view-contact","api:create-receivable"]}`)

	r := e.introspect(t, plaintext)
	expect(t, r, http.StatusOK, "")
	var got client.Introspection
	r.data(t, &got)
	wantLimits := authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 4}
	want := client.Introspection{
		TenantID: tenantID, TokenID: tokenID, Abilities: []string{"api:view-contact", "api:create-receivable"},
		Flags: authz.Flags{OptIn: true}, Limits: wantLimits,
		InternalToken: got.InternalToken, InternalTokenExpiresAt: got.InternalTokenExpiresAt,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("introspection (-want +got):\n%s", diff)
	}
	if ttl := time.Until(got.InternalTokenExpiresAt); ttl <= 0 || ttl > time.Minute {
		t.Errorf("internal token expires in %s, want within the configured minute", ttl)
	}

	jwks := e.callWith(t, http.MethodGet, "/internal/v1/jwks", "", "")
	expect(t, jwks, http.StatusOK, "")
	verifier, err := authz.NewStaticVerifier(jwks.body)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := verifier.Verify(context.Background(), got.InternalToken)
	if err != nil {
		t.Fatalf("Verify(internal token) = %v", err)
	}
	if claims.TenantID != tenantID || claims.TokenID != tokenID || !claims.Has("api:create-receivable") ||
		claims.Has("api:delete-contact") || claims.Flags != (authz.Flags{OptIn: true}) || claims.Limits != wantLimits {
		t.Errorf("claims = %+v", claims)
	}
}

func TestIntrospectRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	_, plaintext := e.createToken(t, tenantID, `{"name":"ci","abilities":["api:view-contact"]}`)
	number, secret, _ := strings.Cut(plaintext, "|")
	otherSecret := strings.Repeat("x", len(secret))
	tests := []struct{ name, token string }{
		{"wrong secret", number + "|" + otherSecret},
		{"unknown number", "pl_999999|" + secret},
		{"malformed", "pl_abc|" + secret},
		{"truncated", plaintext[:len(plaintext)-1]},
		{"empty", ""},
		{"admin token", adminToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, e.introspect(t, tt.token), http.StatusUnauthorized, "unauthenticated")
		})
	}
	expect(t, e.callWith(t, http.MethodPost, "/internal/v1/introspect", `{"token":"x","extra":1}`, ""), 422, "validation_failed")
}

func TestJWKSIsTheSignersKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.callWith(t, http.MethodGet, "/internal/v1/jwks", "", "")
	expect(t, r, http.StatusOK, "")
	if string(r.body) != string(e.signer.JWKS()) {
		t.Errorf("jwks = %s, want %s", r.body, e.signer.JWKS())
	}
}
