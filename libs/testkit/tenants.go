package testkit

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/breaker"
)

// TenantToken is an internal token naming tenant, unsigned: for fakes that
// only read whose call it is (breaker.TenantOf), never for a verifier.
func TenantToken(tenant string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"EdDSA"}`)) + "." + enc([]byte(`{"tenant_id":"`+tenant+`"}`)) + ".sig"
}

// TenantServer is a fake service that answers each tenant's calls with
// status[tenant] and an error envelope, or 200 with okBody when the tenant
// has no status, and counts the calls of each tenant (the second result).
func TenantServer(t testing.TB, status map[string]int, okBody string) (*httptest.Server, func(tenant string) int) {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant := breaker.TenantOf(r.Header.Get("Authorization"))
		mu.Lock()
		calls[tenant]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if s, ok := status[tenant]; ok {
			w.WriteHeader(s)
			_, _ = w.Write([]byte(`{"error":{"code":"some_code","message":"refused"}}`))
			return
		}
		_, _ = w.Write([]byte(okBody))
	}))
	t.Cleanup(srv.Close)
	return srv, func(tenant string) int { mu.Lock(); defer mu.Unlock(); return calls[tenant] }
}
