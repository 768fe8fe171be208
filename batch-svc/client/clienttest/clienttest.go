// Package clienttest is a fake batch-svc for the tests of the services
// that read batches through batch-svc/client: an httptest server speaking
// the read routes the client calls (GET /api/v1/batches, /{batch} and
// /{batch}/errors) with batch-svc's rules where a caller depends on them,
// kept per tenant (the tenant_id of the internal token, read unverified:
// the fake stands in for the data, not for the authentication):
//
//   - batches list newest first, filtered by type and status; an unknown
//     type or status is a 422 naming it;
//   - page and per_page as the service reads them (15 batches and 25 row
//     errors a page by default, at most 100; not a positive integer is a
//     422);
//   - another tenant's batch, or an unknown one, is a 404
//     resource_not_found; row errors list in row order.
//
// The fake does not gate by ability: a test chooses error answers (403
// for a type the token may not read, 5xx) with FailTenant or FailWhen.
// internal/clientcontract of batch-svc runs the same cases against this
// fake and the real service.
package clienttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/batch-svc/client"
	"github.com/paylane/paylane/libs/breaker"
)

// Call is one request the fake received.
type Call struct {
	Method, Path, Query string
	// Token is the bearer token it carried.
	Token  string
	Tenant string
}

// Fail decides an error answer for a call: a status of 0 answers normally.
type Fail func(Call) int

// Batches is the fake.
type Batches struct {
	URL string

	mu      sync.Mutex
	calls   []Call
	fails   []Fail
	batches map[string][]client.Batch // tenant → batches, oldest first
	errors  map[string][]client.RowError
}

// New starts the fake until the test ends.
func New(t testing.TB) *Batches {
	f := &Batches{batches: map[string][]client.Batch{}, errors: map[string][]client.RowError{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/batches", f.guard(f.list))
	mux.HandleFunc("GET /api/v1/batches/{id}", f.guard(f.show))
	mux.HandleFunc("GET /api/v1/batches/{id}/errors", f.guard(f.rowErrors))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "route_not_found", "The route was not found.", nil)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Add stores a batch of tenant with its row errors (the test's own setup:
// the header is kept as given) and returns it.
func (f *Batches) Add(tenant string, b client.Batch, rowErrors ...client.RowError) client.Batch {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches[tenant] = append(f.batches[tenant], b)
	rows := append([]client.RowError{}, rowErrors...)
	slices.SortStableFunc(rows, func(x, y client.RowError) int { return x.RowIndex - y.RowIndex })
	f.errors[tenant+"/"+b.ID] = rows
	return b
}

// FailTenant answers every later call of tenant with status.
func (f *Batches) FailTenant(tenant string, status int) {
	f.FailWhen(func(c Call) int {
		if c.Tenant == tenant {
			return status
		}
		return 0
	})
}

// FailWhen adds a rule choosing error answers; the first rule answering a
// status wins.
func (f *Batches) FailWhen(rule Fail) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails = append(f.fails, rule)
}

// Calls returns the calls received so far.
func (f *Batches) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

func (f *Batches) list(w http.ResponseWriter, r *http.Request, c Call) {
	q := r.URL.Query()
	typ, status := q.Get("type"), q.Get("status")
	if typ != "" && !slices.Contains(client.Types(), typ) {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"type": {"The selected type is invalid (contacts, receivables, payables)."}})
		return
	}
	if status != "" && !slices.Contains(client.Statuses(), status) {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"status": {"The selected status is invalid (queued, processing, completed, partial_failure, failed)."}})
		return
	}
	page, perPage, ok := pageOf(w, q.Get("page"), q.Get("per_page"), 15)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []client.Batch
	for _, b := range slices.Backward(f.batches[c.Tenant]) {
		if (typ == "" || b.Type == typ) && (status == "" || b.Status == status) {
			match = append(match, b)
		}
	}
	writeJSON(w, http.StatusOK, client.BatchPage{Data: window(match, page, perPage), Meta: meta(len(match), page, perPage)})
}

func (f *Batches) show(w http.ResponseWriter, r *http.Request, c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.batches[c.Tenant] {
		if b.ID == r.PathValue("id") {
			writeJSON(w, http.StatusOK, map[string]any{"data": b})
			return
		}
	}
	writeError(w, http.StatusNotFound, "resource_not_found", "The resource was not found.", nil)
}

func (f *Batches) rowErrors(w http.ResponseWriter, r *http.Request, c Call) {
	q := r.URL.Query()
	page, perPage, ok := pageOf(w, q.Get("page"), q.Get("per_page"), 25)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rows, found := f.errors[c.Tenant+"/"+r.PathValue("id")]
	if !found {
		writeError(w, http.StatusNotFound, "resource_not_found", "The resource was not found.", nil)
		return
	}
	writeJSON(w, http.StatusOK, client.RowErrorPage{Data: window(rows, page, perPage), Meta: meta(len(rows), page, perPage)})
}

// guard records the call and answers a chosen failure before h.
func (f *Batches) guard(h func(http.ResponseWriter, *http.Request, Call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Token: strings.TrimPrefix(auth, "Bearer "),
			Tenant: breaker.TenantOf(auth)}
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

// pageOf reads page and per_page as batch-svc does, answering the 422
// itself when ok is false.
func pageOf(w http.ResponseWriter, page, perPage string, defaultPerPage int) (int, int, bool) {
	n, size := 1, defaultPerPage
	for _, p := range []struct {
		name, value string
		to          *int
	}{{"page", page, &n}, {"per_page", perPage, &size}} {
		if p.value == "" {
			continue
		}
		v, err := strconv.Atoi(p.value)
		if err != nil || v < 1 {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
				map[string][]string{p.name: {"The " + strings.ReplaceAll(p.name, "_", " ") + " must be a positive integer."}})
			return 0, 0, false
		}
		*p.to = v
	}
	return n, min(size, 100), true
}

func window[T any](all []T, page, perPage int) []T {
	from, to := min((page-1)*perPage, len(all)), min(page*perPage, len(all))
	return append([]T{}, all[from:to]...)
}

func meta(total, page, perPage int) client.Meta {
	return client.Meta{CurrentPage: page, PerPage: perPage, Total: total, LastPage: max(1, (total+perPage-1)/perPage)}
}

func writeFailure(w http.ResponseWriter, status int) {
	switch {
	case status >= 500:
		writeError(w, status, "server_error", "Server error.", nil)
	case status == http.StatusForbidden:
		writeError(w, status, "forbidden", "This action is unauthorized.", nil)
	case status == http.StatusNotFound:
		writeError(w, status, "resource_not_found", "The resource was not found.", nil)
	default:
		writeError(w, status, "bad_request", "The request was refused.", nil)
	}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, status int, code, message string, details any) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": message, "details": details}})
}
