package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/httpapi"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/ids"
)

// asService sends a request with the service secret.
func (e *env) asService(t *testing.T, method, path, body string) response {
	t.Helper()
	return e.callWith(t, method, path, body, "Bearer "+serviceSecret)
}

func TestServiceTokenIsVerifiableWithTheTenantsClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme","default_currency":"EUR","default_region":"FR",
		"flags":{"opt_in":true},"limits":{"api_requests_per_minute":90}}`)
	r := e.asService(t, http.MethodPost, "/internal/v1/service-tokens",
		`{"tenant_id":"`+tenantID+`","abilities":["api:view-contact","api:create-suppression"],"service":"optin-svc"}`)
	expect(t, r, http.StatusOK, "")
	var got client.ServiceToken
	r.data(t, &got)
	if ttl := time.Until(got.InternalTokenExpiresAt); ttl <= 0 || ttl > time.Minute+time.Second {
		t.Errorf("expires in %s, want within the configured minute", ttl)
	}
	v, err := authz.NewStaticVerifier(e.signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(context.Background(), got.InternalToken)
	if err != nil {
		t.Fatalf("Verify(service token) = %v", err)
	}
	want := authz.Claims{
		TenantID: tenantID, TokenID: 0, Abilities: []string{"api:view-contact", "api:create-suppression"},
		Flags:  authz.Flags{OptIn: true},
		Limits: authz.Limits{APIRequestsPerMinute: 90, BatchSubmissionsPerMinute: 10, BatchesInFlight: 2},
		Region: "FR", Currency: "EUR",
	}
	want.RegisteredClaims = c.RegisteredClaims
	if diff := cmp.Diff(want, *c); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	if c.Subject != "service:optin-svc" {
		t.Errorf("sub = %q, want service:optin-svc", c.Subject)
	}
}

func TestServiceTokenRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	grant := func(tenant, abilities string) string {
		return `{"tenant_id":"` + tenant + `","abilities":` + abilities + `,"service":"batch-worker"}`
	}
	valid := grant(tenantID, `["api:view-contact"]`)
	tests := []struct {
		name, authorization, body string
		status                    int
		code                      string
	}{
		{"no secret", "", valid, 401, "unauthenticated"},
		{"wrong secret", "Bearer not-the-service-secret", valid, 401, "unauthenticated"},
		{"admin token", "Bearer " + adminToken, valid, 401, "unauthenticated"},
		{"secret without Bearer", serviceSecret, valid, 401, "unauthenticated"},
		{"unknown ability", "Bearer " + serviceSecret, grant(tenantID, `["api:view-contact","api:fly"]`), 422, "validation_failed"},
		{"no abilities", "Bearer " + serviceSecret, grant(tenantID, `[]`), 422, "validation_failed"},
		{"unknown field", "Bearer " + serviceSecret, `{"tenant_id":"` + tenantID + `","abilities":["api:view-contact"],"service":"x","token_id":3}`, 422, "validation_failed"},
		{"unknown tenant", "Bearer " + serviceSecret, grant(ids.New(), `["api:view-contact"]`), 404, "resource_not_found"},
		{"malformed tenant", "Bearer " + serviceSecret, grant("acme", `["api:view-contact"]`), 404, "resource_not_found"},
		{"not JSON", "Bearer " + serviceSecret, `{`, 400, "bad_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.callWith(t, http.MethodPost, "/internal/v1/service-tokens", tt.body, tt.authorization)
			expect(t, r, tt.status, tt.code)
		})
	}
	r := e.asService(t, http.MethodPost, "/internal/v1/service-tokens", grant(tenantID, `["api:view-contact","api:fly","api:swim"]`))
	want := map[string][]string{"abilities": {"Unknown abilities: api:fly, api:swim."}}
	if diff := cmp.Diff(want, r.errorDetails(t)); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}

func TestInternalTenantLookups(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme","sms_number":"+15550001111","default_region":"CA","default_currency":"CAD","flags":{"opt_in":true}}`)
	e.createTenant(t, `{"name":"Other","sms_number":"+15550002222"}`)
	admin := e.call(t, http.MethodGet, "/admin/v1/tenants/"+tenantID, "")
	expect(t, admin, http.StatusOK, "")
	var want client.Tenant
	admin.data(t, &want)

	for _, path := range []string{
		"/internal/v1/tenants/" + tenantID,
		"/internal/v1/tenants?sms_number=%2B15550001111",
		"/internal/v1/tenants?sms_number=+15550001111", // a raw '+' arrives as a space
	} {
		r := e.asService(t, http.MethodGet, path, "")
		expect(t, r, http.StatusOK, "")
		var got client.Tenant
		r.data(t, &got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
	}
	tests := []struct {
		name, path, authorization string
		status                    int
		code                      string
	}{
		{"unknown tenant", "/internal/v1/tenants/" + ids.New(), "Bearer " + serviceSecret, 404, "resource_not_found"},
		{"malformed tenant", "/internal/v1/tenants/acme", "Bearer " + serviceSecret, 404, "resource_not_found"},
		{"unused number", "/internal/v1/tenants?sms_number=%2B15550009999", "Bearer " + serviceSecret, 404, "resource_not_found"},
		{"no number", "/internal/v1/tenants", "Bearer " + serviceSecret, 422, "validation_failed"},
		{"not E.164", "/internal/v1/tenants?sms_number=5550001111", "Bearer " + serviceSecret, 422, "validation_failed"},
		{"tenant, wrong secret", "/internal/v1/tenants/" + tenantID, "Bearer wrong", 401, "unauthenticated"},
		{"number, admin token", "/internal/v1/tenants?sms_number=%2B15550001111", "Bearer " + adminToken, 401, "unauthenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, e.callWith(t, http.MethodGet, tt.path, "", tt.authorization), tt.status, tt.code)
		})
	}
}

func TestServiceRoutesAbsentWithoutASecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	web := httpx.NewApp(nil)
	httpapi.Register(web, app.New(store.New(e.db.Pool), e.signer, time.Minute), e.signer.JWKS(), adminToken, "")
	bare := &env{web: web, signer: e.signer, db: e.db}
	tenantID := bare.createTenant(t, `{"name":"Acme"}`)
	for _, authorization := range []string{"", "Bearer ", "Bearer " + serviceSecret} {
		expect(t, bare.callWith(t, http.MethodPost, "/internal/v1/service-tokens",
			`{"tenant_id":"`+tenantID+`","abilities":["api:view-contact"],"service":"x"}`, authorization), 404, "route_not_found")
		expect(t, bare.callWith(t, http.MethodGet, "/internal/v1/tenants/"+tenantID, "", authorization), 404, "route_not_found")
		expect(t, bare.callWith(t, http.MethodGet, "/internal/v1/tenants?sms_number=%2B15550001111", "", authorization), 404, "route_not_found")
	}
	// The gateway's routes do not need the secret.
	expect(t, bare.callWith(t, http.MethodGet, "/internal/v1/jwks", "", ""), http.StatusOK, "")
}
