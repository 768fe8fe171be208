// Package clienttest is a stand-in for transactions-svc that the tests of
// other services point transactions-svc/client at: an HTTP server answering
// GET /internal/v1/notifications/{id} from notifications the test adds,
// per tenant, with the answers of transactions-svc (200 {data}, 404
// resource_not_found) or, while the test says so, a 503.
//
// It reads the tenant from the bearer token's tenant_id claim without
// verifying the signature: it stands in for transactions-svc's data, not
// for its authentication.
package clienttest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/transactions-svc/client"
)

// Fake is a running stand-in for transactions-svc.
type Fake struct {
	// URL is the base URL to give client.New.
	URL string

	mu            sync.Mutex
	notifications map[string]client.Notification // tenant + "/" + id
	down          bool
	calls         int
}

// New starts a fake until the test ends.
func New(t testing.TB) *Fake {
	t.Helper()
	f := &Fake{notifications: map[string]client.Notification{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/notifications/{id}", f.notification)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// AddNotification makes the tenant's notification n.ID readable.
func (f *Fake) AddNotification(tenantID string, n client.Notification) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notifications[tenantID+"/"+n.ID] = n
}

// SetDown makes every later call answer 503 (true) or be served again (false).
func (f *Fake) SetDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// Calls returns how many requests the fake received.
func (f *Fake) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *Fake) notification(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls++
	down := f.down
	n, ok := f.notifications[tenantOf(r)+"/"+r.PathValue("id")]
	f.mu.Unlock()
	switch {
	case down:
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "transactions-svc is unavailable.")
	case !ok:
		writeError(w, http.StatusNotFound, "resource_not_found", "The notification was not found.")
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": n})
	}
}

// tenantOf reads the tenant_id claim of the request's bearer token ("" when
// there is none).
func tenantOf(r *http.Request) string {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(token, ".")
	if !ok || len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		TenantID string `json:"tenant_id"`
	}
	_ = json.Unmarshal(raw, &claims)
	return claims.TenantID
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message,
		"details": map[string]any{}, "request_id": ""}})
}
