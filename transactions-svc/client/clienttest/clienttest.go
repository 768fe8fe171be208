// Package clienttest is a fake transactions-svc for the tests of the
// services that call it through transactions-svc/client: an HTTP server
// answering the internal routes the client calls, per tenant, with
// transactions-svc's answers where callers depend on them:
//
//   - GET /internal/v1/notifications/{id}: the notifications the test adds
//     (404 resource_not_found for another's or an unknown one);
//   - GET /internal/v1/notifications?ids=: the tenant's among 1 to 100
//     well-formed ids, others left out (422 on ids otherwise);
//   - POST /internal/v1/drafts (Prepare): a draft of the direction, with
//     the token's api:create-<direction> (403 without; 422 naming direction
//     or contact_id for a bad direction or a contact RefuseContact names);
//   - POST /internal/v1/transactions/{id}/confirm: a draft becomes pending
//     (scheduled with a future send_at), with api:create-<direction>; any
//     other state is 422 invalid_transition naming both states;
//   - GET /internal/v1/transactions/{ref}/status: by transaction id or its
//     receivable's or payable's id, with api:view-<direction>;
//   - POST /internal/v1/{receivables,payables}/bulk-create and GET
//     /internal/v1/campaigns/steps (batch-svc): rows recorded per batch and
//     row, the campaigns AddCampaign makes known.
//
// FailTenant and FailWhen answer chosen calls with a chosen status, SetDown
// every call with 503. The tenant and abilities come from the bearer
// token's claims, read without verifying the signature: the fake stands in
// for transactions-svc's data, not for its authentication.
package clienttest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
)

// Fake is a running stand-in for transactions-svc.
type Fake struct {
	// URL is the base URL to give client.New.
	URL string

	mu            sync.Mutex
	notifications map[string]client.Notification // tenant + "/" + id
	down          bool
	requests      []Request
	txns          map[string][]*Transaction // tenant → transactions
	refused       map[string]bool           // contact ids prepare refuses
	fails         map[string]int            // tenant → status
	rules         []func(Request) int
	campaigns     map[string][]Campaign           // tenant → campaigns
	bulkRows      map[string]client.BulkRowResult // tenant/batch/row → outcome
}

// New starts a fake until the test ends.
func New(t testing.TB) *Fake {
	t.Helper()
	f := &Fake{notifications: map[string]client.Notification{}, txns: map[string][]*Transaction{},
		refused: map[string]bool{}, fails: map[string]int{}, campaigns: map[string][]Campaign{},
		bulkRows: map[string]client.BulkRowResult{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/notifications", f.notificationsByID)
	mux.HandleFunc("GET /internal/v1/notifications/{id}", f.notification)
	mux.HandleFunc("POST /internal/v1/drafts", f.prepare)
	mux.HandleFunc("POST /internal/v1/transactions/{id}/confirm", f.confirm)
	mux.HandleFunc("GET /internal/v1/transactions/{id}/status", f.status)
	mux.HandleFunc("POST /internal/v1/receivables/bulk-create", f.bulkCreate)
	mux.HandleFunc("POST /internal/v1/payables/bulk-create", f.bulkCreate)
	mux.HandleFunc("GET /internal/v1/campaigns/steps", f.steps)
	srv := httptest.NewServer(f.guard(mux))
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
	return len(f.requests)
}

func (f *Fake) notification(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n, ok := f.notifications[tenantOf(r)+"/"+r.PathValue("id")]
	f.mu.Unlock()
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "resource_not_found", "The notification was not found.")
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": n})
	}
}

// notificationsByID answers the read by ids as transactions-svc does: 1 to
// 100 well-formed ids, the tenant's notifications among them, each once.
func (f *Fake) notificationsByID(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("ids")
	list := strings.Split(raw, ",")
	bad := raw == "" || len(list) > client.MaxNotificationsByID
	for _, id := range list {
		bad = bad || !ids.Valid(id)
	}
	if bad {
		writeErrorDetails(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"ids": {"The ids field must name 1 to 100 notification ids."}})
		return
	}
	f.mu.Lock()
	found := []client.Notification{}
	for _, id := range slices.Compact(slices.Sorted(slices.Values(list))) {
		if n, ok := f.notifications[tenantOf(r)+"/"+id]; ok {
			found = append(found, n)
		}
	}
	f.mu.Unlock()
	writeData(w, http.StatusOK, found)
}

// tenantOf reads the tenant_id claim of the request's bearer token ("" when
// there is none).
func tenantOf(r *http.Request) string { return claimsOf(r).TenantID }

// claims are the claims of a bearer token the fake reads.
type claims struct {
	TenantID  string   `json:"tenant_id"`
	Abilities []string `json:"abilities"`
}

// claimsOf reads the claims of the request's bearer token, unverified.
func claimsOf(r *http.Request) claims {
	var c claims
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(token, ".")
	if !ok || len(parts) != 3 {
		return c
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err == nil {
		_ = json.Unmarshal(raw, &c)
	}
	return c
}

// holds reports whether the request's token claims ability.
func holds(r *http.Request, ability string) bool {
	return slices.Contains(claimsOf(r).Abilities, ability)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeErrorDetails(w, status, code, message, map[string]any{})
}

func writeErrorDetails(w http.ResponseWriter, status int, code, message string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message,
		"details": details, "request_id": ""}})
}

func writeData(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}
