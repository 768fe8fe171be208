package clientcontract_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

// counter is a RoundTripper that counts the requests per path it passes on.
type counter struct {
	next http.RoundTripper
	mu   sync.Mutex
	hits map[string]int
}

func newCounter() *counter { return &counter{next: http.DefaultTransport, hits: map[string]int{}} }

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.hits[req.URL.Path]++
	c.mu.Unlock()
	return c.next.RoundTrip(req)
}

func (c *counter) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[path]
}

const serviceTokensPath = "/internal/v1/service-tokens"

func TestServiceTokenIsCachedPerTenantAndAbilities(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, admin, acme := startWithTenant(t, client.TenantInput{Name: ptr("Acme"), DefaultRegion: ptr("GB"),
		Flags: &client.FlagsInput{OptIn: ptr(true)}})
	other, err := admin.CreateTenant(ctx, client.TenantInput{Name: ptr("Other")})
	if err != nil {
		t.Fatal(err)
	}
	hits := newCounter()
	c := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, &http.Client{Transport: hits}).WithService("optin-svc")

	first, err := c.ServiceToken(ctx, acme.ID, []string{"api:view-contact", "api:create-suppression"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.ServiceToken(ctx, acme.ID, []string{"api:create-suppression", "api:view-contact", "api:view-contact"})
	if err != nil {
		t.Fatal(err)
	}
	if again != first || hits.count(serviceTokensPath) != 1 {
		t.Errorf("second call: same token %v, %d requests; want the cached token and 1 request", again == first, hits.count(serviceTokensPath))
	}
	if _, err := c.ServiceToken(ctx, acme.ID, []string{"api:view-contact"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ServiceToken(ctx, other.ID, []string{"api:view-contact", "api:create-suppression"}); err != nil {
		t.Fatal(err)
	}
	if got := hits.count(serviceTokensPath); got != 3 {
		t.Errorf("other abilities and another tenant: %d requests, want 3", got)
	}

	v, err := authz.NewStaticVerifier(svc.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if claims.TenantID != acme.ID || claims.TokenID != 0 || claims.Subject != "service:optin-svc" ||
		!claims.Flags.OptIn || claims.Region != "GB" || claims.Currency != "USD" ||
		!claims.Has("api:create-suppression") || !claims.Has("api:view-contact") || len(claims.Abilities) != 2 {
		t.Errorf("claims = %+v", claims)
	}
}

func TestServiceTokenNearExpiryIsNotReused(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	// A stand-in identity-svc whose tokens are already inside the margin.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.URL.Path != serviceTokensPath {
			http.Error(w, "{}", http.StatusUnauthorized)
			return
		}
		expires := time.Now().Add(client.ServiceTokenMargin / 2).UTC().Format(time.RFC3339Nano)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{"internal_token":"jwt-` + ids.New() + `","internal_token_expires_at":"` + expires + `"}}`))
	}))
	t.Cleanup(srv.Close)
	c := client.NewWithSecret(srv.URL, "s3cret", nil)
	a, err := c.ServiceToken(context.Background(), "T", []string{"api:view-contact"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.ServiceToken(context.Background(), "T", []string{"api:view-contact"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if a == b || calls != 2 {
		t.Errorf("tokens equal %v after %d calls; want a fresh token from a second call", a == b, calls)
	}
}

func TestServiceTokenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _, acme := startWithTenant(t, client.TenantInput{Name: ptr("Acme")})
	good := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil)
	tests := []struct {
		name          string
		c             *client.Client
		tenant        string
		abilities     []string
		status        int
		tenantMissing bool
	}{
		{"wrong secret", client.NewWithSecret(svc.BaseURL(), "wrong-secret", nil), acme.ID, []string{"api:view-contact"}, 401, false},
		{"no secret", client.New(svc.BaseURL(), nil), acme.ID, []string{"api:view-contact"}, 401, false},
		{"unknown ability", good, acme.ID, []string{"api:fly"}, 422, false},
		{"unknown tenant", good, ids.New(), []string{"api:view-contact"}, 404, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.ServiceToken(ctx, tt.tenant, tt.abilities)
			if client.StatusOf(err) != tt.status || errors.Is(err, client.ErrTenantNotFound) != tt.tenantMissing {
				t.Errorf("ServiceToken() = %v, want status %d (tenant missing: %v)", err, tt.status, tt.tenantMissing)
			}
		})
	}
}

func TestTenantLookups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _, acme := startWithTenant(t, client.TenantInput{Name: ptr("Acme"), SMSNumber: ptr("+15550001111"),
		DefaultCurrency: ptr("CAD"), Flags: &client.FlagsInput{AIGateway: ptr(true)}})
	c := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil)

	byID, err := c.Tenant(ctx, acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(acme, byID); diff != "" {
		t.Errorf("Tenant() (-want +got):\n%s", diff)
	}
	byNumber, err := c.TenantBySMSNumber(ctx, "+15550001111")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(acme, byNumber); diff != "" {
		t.Errorf("TenantBySMSNumber() (-want +got):\n%s", diff)
	}
	if _, err := c.Tenant(ctx, ids.New()); !errors.Is(err, client.ErrTenantNotFound) || client.StatusOf(err) != 404 {
		t.Errorf("Tenant(unknown) = %v, want ErrTenantNotFound", err)
	}
	if _, err := c.TenantBySMSNumber(ctx, "+15550009999"); !errors.Is(err, client.ErrTenantNotFound) {
		t.Errorf("TenantBySMSNumber(unused) = %v, want ErrTenantNotFound", err)
	}
	if _, err := c.TenantBySMSNumber(ctx, "5550001111"); client.StatusOf(err) != 422 || errors.Is(err, client.ErrTenantNotFound) {
		t.Errorf("TenantBySMSNumber(not E.164) = %v, want 422", err)
	}
	wrong := client.NewWithSecret(svc.BaseURL(), "wrong-secret", nil)
	if _, err := wrong.Tenant(ctx, acme.ID); client.StatusOf(err) != 401 {
		t.Errorf("Tenant() with a wrong secret = %v, want 401", err)
	}
}

func TestDefaultServiceNameIsTheProgram(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _, acme := startWithTenant(t, client.TenantInput{Name: ptr("Acme")})
	tok, err := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil).ServiceToken(ctx, acme.ID, []string{"api:view-contact"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := authz.NewStaticVerifier(svc.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	// The test binary is client.test.
	if !strings.HasPrefix(claims.Subject, "service:client") {
		t.Errorf("sub = %q, want service:<program name>", claims.Subject)
	}
}

// startWithTenant starts the service and creates tenant in with its admin
// client, failing the test when it cannot.
func startWithTenant(t *testing.T, in client.TenantInput) (testenv.Service, *client.Admin, *client.Tenant) {
	t.Helper()
	svc := testenv.Start(t, nil)
	admin := client.NewAdmin(svc.BaseURL(), testenv.AdminToken, nil)
	acme, err := admin.CreateTenant(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return svc, admin, acme
}
