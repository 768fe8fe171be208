// Package clienttest is a fake contacts-svc for the tests of the services
// that call it through contacts-svc/client: an httptest server speaking the
// internal routes the client calls (contact and phone reads,
// find-or-create, search, bulk upsert) with contacts-svc's rules where a
// caller depends on them, kept per tenant (the tenant_id of the internal
// token, read unverified: the fake stands in for the data, not for the
// authentication):
//
//   - phones are normalised to E.164 in the token's region (default US); a
//     phone that is not a number, or one a live contact of the tenant
//     already has, is a 422 naming phone (a failed row in a bulk upsert);
//   - one phone record per number and tenant, which outlives its contacts;
//   - find-or-create finds a live contact by external id, else creates one
//     (an unknown external id without a phone is a 422 naming phone);
//   - a bulk upsert records every row's outcome under (batch id, row
//     index), so a chunk sent again is answered from the record; a row
//     whose external id names a live contact follows on_duplicate;
//   - a deleted contact (Delete) still reads, with deleted_at.
//
// A test sets the state (Add, Delete), reads it (Contacts, Calls), and
// chooses error answers for chosen tenants or requests (FailTenant,
// FailWhen), so a caller's handling of a peer's 4xx and 5xx can be tested
// without the real service. internal/clientcontract of contacts-svc runs
// the same cases against this fake and the real service.
package clienttest

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/breaker"
)

// Call is one request the fake received.
type Call struct {
	Method, Path, Query string
	// Token is the bearer token it carried, IdempotencyKey its
	// Idempotency-Key.
	Token, IdempotencyKey string
	Tenant                string
	// Region is the token's default region ("US" when it has none).
	Region string
	Body   []byte
}

// Fail decides an error answer for a call: a status of 0 answers normally.
type Fail func(Call) int

// Contacts is the fake.
type Contacts struct {
	URL string

	mu         sync.Mutex
	calls      []Call
	fails      []Fail
	tenants    map[string]*tenant
	candidates map[string][]client.Candidate // tenant + "/" + name → search answer
}

// New starts the fake until the test ends.
func New(t testing.TB) *Contacts {
	f := &Contacts{tenants: map[string]*tenant{}, candidates: map[string][]client.Candidate{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/contacts/search", f.guard(f.search))
	mux.HandleFunc("GET /internal/v1/contacts/{id}", f.guard(f.contact))
	mux.HandleFunc("POST /internal/v1/contacts/find-or-create", f.guard(f.findOrCreate))
	mux.HandleFunc("POST /internal/v1/contacts/bulk-upsert", f.guard(f.bulkUpsert))
	mux.HandleFunc("GET /internal/v1/phones/{id}", f.guard(f.phone))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "route_not_found", "The route was not found.", nil)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// FailTenant answers every later call of tenant with status (an error
// envelope, code server_error for a 5xx, validation_failed naming
// external_id for a 422, bad_request otherwise).
func (f *Contacts) FailTenant(tenant string, status int) {
	f.FailWhen(func(c Call) int {
		if c.Tenant == tenant {
			return status
		}
		return 0
	})
}

// FailWhen adds a rule choosing error answers; the first rule answering a
// status wins.
func (f *Contacts) FailWhen(rule Fail) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails = append(f.fails, rule)
}

// Calls returns the calls received so far.
func (f *Contacts) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Last returns the last call to path (zero when none).
func (f *Contacts) Last(path string) Call {
	calls := f.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Path == path {
			return calls[i]
		}
	}
	return Call{}
}

// SetCandidates makes a search of tenant for exactly name answer cands, in
// that order, whatever the contacts (a test of a caller's reading of
// similarity scores chooses them).
func (f *Contacts) SetCandidates(tenantID, name string, cands ...client.Candidate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.candidates[tenantID+"/"+name] = cands
}

// CallsOf returns how many calls tenant made.
func (f *Contacts) CallsOf(tenant string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Tenant == tenant {
			n++
		}
	}
	return n
}

// guard records the call and answers a chosen failure before h.
func (f *Contacts) guard(h func(http.ResponseWriter, *http.Request, Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Token: strings.TrimPrefix(auth, "Bearer "),
			IdempotencyKey: r.Header.Get("Idempotency-Key"), Tenant: breaker.TenantOf(auth), Region: regionOf(auth), Body: body}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		rules := append([]Fail(nil), f.fails...)
		f.mu.Unlock()
		if c.Tenant == "" {
			writeError(w, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.", nil)
			return
		}
		for _, rule := range rules {
			if status := rule(c); status != 0 {
				writeFailure(w, status)
				return
			}
		}
		h(w, r, c)
	}
}

// regionOf reads the region claim of an internal token, unverified.
func regionOf(auth string) string {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(auth), "Bearer "), ".")
	if len(parts) == 3 {
		if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "=")); err == nil {
			var claims struct {
				Region string `json:"region"`
			}
			if json.Unmarshal(b, &claims) == nil && claims.Region != "" {
				return claims.Region
			}
		}
	}
	return "US"
}

func writeFailure(w http.ResponseWriter, status int) {
	switch {
	case status >= 500:
		writeError(w, status, "server_error", "Server error.", nil)
	case status == http.StatusUnprocessableEntity:
		writeError(w, status, "validation_failed", "The given data was invalid.",
			map[string][]string{"external_id": {"The external id is invalid."}})
	case status == http.StatusNotFound:
		writeError(w, status, "resource_not_found", "The resource was not found.", nil)
	default:
		writeError(w, status, "bad_request", "The request was refused.", nil)
	}
}

func writeData(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func writeError(w http.ResponseWriter, status int, code, message string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message, "details": details}})
}
