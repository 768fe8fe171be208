package testenv

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/breaker"
)

// Call is one request a fake peer received.
type Call struct {
	Method, Path, Query string
	// Token is the bearer token it carried; IdempotencyKey its Idempotency-Key.
	Token, IdempotencyKey string
	Body                  map[string]any
}

// recorder keeps the calls of a fake.
type recorder struct {
	mu    sync.Mutex
	calls []Call
}

func (r *recorder) record(req *http.Request) Call {
	c := Call{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Token:          strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "),
		IdempotencyKey: req.Header.Get("Idempotency-Key")}
	_ = json.NewDecoder(req.Body).Decode(&c.Body)
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return c
}

// Calls returns the calls received so far.
func (r *recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Last returns the last call to path (zero when none).
func (r *recorder) Last(path string) Call {
	calls := r.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Path == path {
			return calls[i]
		}
	}
	return Call{}
}

// Contacts is a fake contacts-svc: search answers the candidates set for
// the name (none by default); find-or-create refuses a contact without a
// phone (422 naming phone) and creates the others.
type Contacts struct {
	recorder
	URL        string
	mu         sync.Mutex
	candidates map[string][]map[string]any
}

// NewContacts starts the fake until the test ends.
func NewContacts(t testing.TB) *Contacts {
	f := &Contacts{candidates: map[string][]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/contacts/search", f.search)
	mux.HandleFunc("POST /internal/v1/contacts/find-or-create", f.findOrCreate)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// SetCandidates makes a search for name answer a candidate per score, best first.
func (f *Contacts) SetCandidates(name string, scores ...float64) {
	list := make([]map[string]any, len(scores))
	for i, s := range scores {
		id := name + "-" + string(rune('a'+i))
		list[i] = map[string]any{"contact_id": id, "external_id": "ext-" + id, "first_name": name,
			"last_name": nil, "phone_last4": "0123", "score": s}
	}
	f.mu.Lock()
	f.candidates[name] = list
	f.mu.Unlock()
}

func (f *Contacts) search(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	f.mu.Lock()
	list := f.candidates[r.URL.Query().Get("name")]
	f.mu.Unlock()
	if list == nil {
		list = []map[string]any{}
	}
	writeData(w, http.StatusOK, list)
}

func (f *Contacts) findOrCreate(w http.ResponseWriter, r *http.Request) {
	c := f.record(r)
	if c.Body["phone"] == "" || c.Body["phone"] == nil {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"phone": {"The phone field is required."}})
		return
	}
	ct := map[string]any{"id": "C1", "external_id": nil, "first_name": c.Body["first_name"], "last_name": c.Body["last_name"],
		"phone": c.Body["phone"], "phone_id": "P1", "email": c.Body["email"], "custom_fields": map[string]any{},
		"created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z", "deleted_at": nil}
	writeData(w, http.StatusCreated, map[string]any{"contact": ct, "created": true})
}

// Transactions is a fake transactions-svc. Known transactions: T1
// (receivable draft), T2 (receivable, pending: confirming it is 422
// invalid_transition) and T3 (payable draft); R1 is T1's receivable id.
// Prepare refuses contact "missing" (422 naming contact_id). Like the real
// one, confirm needs the token's api:create-<direction> and status its
// api:view-<direction> (403 forbidden otherwise; the token's claims are
// read, not verified). FailTenant makes every call of a tenant answer a
// chosen status.
type Transactions struct {
	recorder
	URL   string
	mu    sync.Mutex
	fails map[string]int
}

// FailTenant answers every later call of tenant with status (an error
// envelope with code server_error for a 5xx, bad_request otherwise).
func (f *Transactions) FailTenant(tenant string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails[tenant] = status
}

// CallsOf returns how many calls tenant made.
func (f *Transactions) CallsOf(tenant string) int {
	n := 0
	for _, c := range f.Calls() {
		if breaker.TenantOf(c.Token) == tenant {
			n++
		}
	}
	return n
}

// failing answers the status chosen for the caller's tenant, if any.
func (f *Transactions) failing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		status := f.fails[breaker.TenantOf(r.Header.Get("Authorization"))]
		f.mu.Unlock()
		if status == 0 {
			next.ServeHTTP(w, r)
			return
		}
		f.record(r)
		code := "bad_request"
		if status >= 500 {
			code = "server_error"
		}
		writeError(w, status, code, "Refused.", nil)
	})
}

// NewTransactions starts the fake until the test ends.
func NewTransactions(t testing.TB) *Transactions {
	f := &Transactions{fails: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /internal/v1/drafts", f.prepare)
	mux.HandleFunc("POST /internal/v1/transactions/{id}/confirm", f.confirm)
	mux.HandleFunc("GET /internal/v1/transactions/{id}/status", f.status)
	srv := httptest.NewServer(f.failing(mux))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// known returns the transaction id, direction and status a reference names.
func known(ref string) ([3]string, bool) {
	switch ref {
	case "T1", "R1":
		return [3]string{"T1", "receivable", "draft"}, true
	case "T2":
		return [3]string{"T2", "receivable", "pending"}, true
	case "T3":
		return [3]string{"T3", "payable", "draft"}, true
	}
	return [3]string{}, false
}

func (f *Transactions) prepare(w http.ResponseWriter, r *http.Request) {
	c := f.record(r)
	if c.Body["contact_id"] == "missing" {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"contact_id": {"The selected contact_id is invalid."}})
		return
	}
	d := map[string]any{"transaction_id": "T9", "direction": c.Body["direction"], "status": "draft",
		"preview": map[string]any{"recipient_name": "Jane Doe", "phone_last4": "0123", "amount_formatted": "$12.50",
			"message_preview": "Hi Jane", "send_at": nil},
		"expires_at": "2026-01-03T03:04:05Z"}
	d[c.Body["direction"].(string)+"_id"] = "X9"
	writeData(w, http.StatusCreated, d)
}

func (f *Transactions) confirm(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	k, ok := known(r.PathValue("id"))
	switch {
	case !ok || k[0] != r.PathValue("id"):
		writeError(w, http.StatusNotFound, "resource_not_found", "Not found.", nil)
	case !holds(r, "api:create-"+k[1]):
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.", nil)
	case k[2] != "draft":
		writeError(w, http.StatusUnprocessableEntity, "invalid_transition", k[2]+" -> pending",
			map[string]string{"from": k[2], "to": "pending"})
	default:
		writeData(w, http.StatusOK, map[string]any{"transaction_id": k[0], "status": "pending"})
	}
}

func (f *Transactions) status(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	k, ok := known(r.PathValue("id"))
	if !ok {
		writeError(w, http.StatusNotFound, "resource_not_found", "Not found.", nil)
		return
	}
	if !holds(r, "api:view-"+k[1]) {
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.", nil)
		return
	}
	writeData(w, http.StatusOK, map[string]any{"transaction_id": k[0], "direction": k[1], "status": k[2],
		"amount": 1250, "currency": "USD", "latest_message": nil})
}

// holds reports whether the request's bearer token claims ability.
func holds(r *http.Request, ability string) bool {
	parts := strings.Split(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Abilities []string `json:"abilities"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return false
	}
	for _, a := range claims.Abilities {
		if a == ability {
			return true
		}
	}
	return false
}

func writeData(w http.ResponseWriter, status int, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func writeError(w http.ResponseWriter, status int, code, message string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"code": code, "message": message}
	if details != nil {
		body["details"] = details
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": body})
}
