// Package clienttest is a fake identity-svc for the tests of the services
// that call it through identity-svc/client: an httptest server speaking the
// routes the client calls, with identity-svc's answers where a caller
// depends on them:
//
//   - GET /internal/v1/jwks: the keys of Signer, which signs every internal
//     token the fake issues, so services verify them as in production;
//   - POST /internal/v1/introspect: a token made by the admin routes, as
//     the gateway resolves it (401 for any other);
//   - POST /internal/v1/service-tokens, GET /internal/v1/tenants/{id} and
//     GET /internal/v1/tenants?sms_number=: with the service secret (401
//     without; 404 resource_not_found for an unknown tenant or number);
//   - POST, PATCH and GET /admin/v1/tenants[/{id}] and POST
//     /admin/v1/tenants/{id}/tokens: with the admin token, so a test makes
//     tenants and tokens through client.Admin as it would in production.
//
// OnTenantUpdated lets a test see (and, say, publish) every tenant change,
// which identity-svc announces with a tenant.updated event.
package clienttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// Secrets of the fake.
const (
	AdminToken    = "test-admin-token-0123456789"
	ServiceSecret = "test-service-secret-0123456789"
)

// TokenTTL is the lifetime of the internal tokens the fake issues.
const TokenTTL = time.Hour

// Identity is the fake.
type Identity struct {
	// URL is the base URL to give the client (and services' IDENTITY_URL).
	URL string
	// Signer signs the internal tokens; its JWKS is served.
	Signer *authz.Signer

	mu        sync.Mutex
	tenants   map[string]*client.Tenant
	tokens    map[string]token // plaintext → token
	nextToken int64
	onUpdate  []func(client.Tenant)
}

// token is a minted API token.
type token struct {
	id        int64
	tenant    string
	abilities []string
}

// New starts the fake until the test ends.
func New(t testing.TB) *Identity {
	t.Helper()
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	f := &Identity{Signer: signer, tenants: map[string]*client.Tenant{}, tokens: map[string]token{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/jwks", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(signer.JWKS())
	})
	mux.HandleFunc("POST /internal/v1/introspect", f.introspect)
	mux.HandleFunc("POST /internal/v1/service-tokens", f.service(f.serviceToken))
	mux.HandleFunc("GET /internal/v1/tenants/{id}", f.service(f.tenant))
	mux.HandleFunc("GET /internal/v1/tenants", f.service(f.tenantByNumber))
	mux.HandleFunc("POST /admin/v1/tenants", f.admin(f.createTenant))
	mux.HandleFunc("PATCH /admin/v1/tenants/{id}", f.admin(f.updateTenant))
	mux.HandleFunc("GET /admin/v1/tenants/{id}", f.admin(f.tenant))
	mux.HandleFunc("POST /admin/v1/tenants/{id}/tokens", f.admin(f.createToken))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "route_not_found", "The route was not found.")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// OnTenantUpdated calls fn with the tenant after every change made through
// the admin routes.
func (f *Identity) OnTenantUpdated(fn func(client.Tenant)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onUpdate = append(f.onUpdate, fn)
}

// Token signs an internal token of tenant with the abilities (every one
// when none is given), as introspection hands the gateway: the tenant's
// flags, region and currency when the fake knows it, else US and USD.
func (f *Identity) Token(t testing.TB, tenantID string, abilities ...string) string {
	t.Helper()
	if len(abilities) == 0 {
		abilities = authz.All()
	}
	tok, _, err := f.sign(tenantID, 1, abilities, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sign issues an internal token.
func (f *Identity) sign(tenantID string, tokenID int64, abilities []string, subject string) (string, time.Time, error) {
	c := authz.Claims{TenantID: tenantID, TokenID: tokenID, Abilities: abilities, Region: "US", Currency: "USD"}
	f.mu.Lock()
	if tn, ok := f.tenants[tenantID]; ok {
		c.Flags, c.Limits, c.Region, c.Currency = tn.Flags, tn.Limits, tn.DefaultRegion, tn.DefaultCurrency
	}
	f.mu.Unlock()
	c.Subject = subject
	return f.Signer.Sign(c, TokenTTL)
}

// service guards a service-to-service route with the service secret.
func (f *Identity) service(h http.HandlerFunc) http.HandlerFunc {
	return bearer(ServiceSecret, h)
}

// admin guards an admin route with the admin token.
func (f *Identity) admin(h http.HandlerFunc) http.HandlerFunc {
	return bearer(AdminToken, h)
}

func bearer(secret string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			writeError(w, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.")
			return
		}
		h(w, r)
	}
}

func writeData(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message}})
}
