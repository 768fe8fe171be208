// Package clienttest is a fake contacts-svc for the tests of the services
// that call it through contacts-svc/client: an httptest server speaking the
// routes the client calls (contact and phone reads, the read by ids, find-or-create,
// search, bulk upsert, and the public list and single read) with contacts-svc's rules where a
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
	"fmt"
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
	status     int
	maxBody    int64
	refused    int
	onWrite    []func(Call)
	writes     map[string]int // batch id / row index → times written
	tenants    map[string]*tenant
	candidates map[string][]client.Candidate // tenant + "/" + name → search answer
}

// New starts the fake until the test ends.
func New(t testing.TB) *Contacts {
	f := &Contacts{tenants: map[string]*tenant{}, candidates: map[string][]client.Candidate{}, writes: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/contacts/search", f.guard(f.search))
	mux.HandleFunc("GET /internal/v1/contacts/by-id", f.guard(f.byID))
	mux.HandleFunc("GET /internal/v1/contacts/{id}", f.guard(f.contact))
	mux.HandleFunc("POST /internal/v1/contacts/find-or-create", f.guard(f.findOrCreate))
	mux.HandleFunc("POST /internal/v1/contacts/bulk-upsert", f.guard(f.bulkUpsert))
	mux.HandleFunc("GET /internal/v1/phones/{id}", f.guard(f.phone))
	mux.HandleFunc("GET /api/v1/contacts", f.guard(f.listContacts))
	mux.HandleFunc("GET /api/v1/contacts/{id}", f.guard(f.showContact))
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

// Holding returns a rule answering status to any call whose body holds
// marker (as written on the wire: a JSON escape such as \u0000 is matched
// as it is sent), as a service failing on one row's content does.
func Holding(marker string, status int) Fail {
	return func(c Call) int {
		if strings.Contains(string(c.Body), marker) {
			return status
		}
		return 0
	}
}

// SetStatus makes every later call answer status, after the FailWhen rules
// (0: answer normally again).
func (f *Contacts) SetStatus(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

// SetMaxBody makes later calls whose body is above n bytes answer 413
// payload_too_large before the body is read, as the service's body cap
// does (0: no cap).
func (f *Contacts) SetMaxBody(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.maxBody = n
}

// Refused returns how many calls were answered 413.
func (f *Contacts) Refused() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

// OnWrite runs fn after a bulk upsert's rows are recorded, before it
// answers (a test stops the service there, say).
func (f *Contacts) OnWrite(fn func(Call)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onWrite = append(f.onWrite, fn)
}

// Writes returns how many times each of the first rows rows of batch was
// written (created or updated; a row answered from the record is not
// written again).
func (f *Contacts) Writes(batchID string, rows int) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]int, rows)
	for i := range out {
		out[i] = f.writes[fmt.Sprintf("%s/%d", batchID, i)]
	}
	return out
}

// BulkUpsert decodes the body of a bulk-upsert call (zero for another).
func (c Call) BulkUpsert() client.BulkUpsertRawRequest {
	var req client.BulkUpsertRawRequest
	_ = json.Unmarshal(c.Body, &req)
	return req
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
		f.mu.Lock()
		tooLarge := f.maxBody > 0 && r.ContentLength > f.maxBody
		if tooLarge {
			f.refused++
		}
		f.mu.Unlock()
		if tooLarge {
			writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large", "The request body is too large.", nil)
			return
		}
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Token: strings.TrimPrefix(auth, "Bearer "),
			IdempotencyKey: r.Header.Get("Idempotency-Key"), Tenant: breaker.TenantOf(auth), Region: regionOf(auth), Body: body}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		rules, status := append([]Fail(nil), f.fails...), f.status
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
		if status != 0 {
			writeFailure(w, status)
			return
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

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, code, message string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message, "details": details}})
}
