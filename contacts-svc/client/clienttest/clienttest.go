// Package clienttest is a fake contacts-svc for the tests of the services
// that call it through contacts-svc/client: an httptest server speaking the
// internal routes the client calls (contact and phone reads, find-or-create,
// search, bulk upsert), keeping contacts per tenant (the tenant_id of the
// internal token, read unverified), and answering chosen error statuses
// for chosen tenants or requests, so a caller's handling of a peer's 4xx
// and 5xx can be tested without the real service.
package clienttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/breaker"
)

// Call is one request the fake received.
type Call struct {
	Method, Path string
	Tenant       string
	Body         []byte
}

// Fail decides an error answer for a call: a status of 0 answers normally.
type Fail func(Call) int

// Contacts is the fake. Contacts are the ones Add made; find-or-create
// finds a live one by external id, refuses an unknown one without a phone
// (422 naming phone, as the real service does) and creates the others;
// bulk upsert creates every row with a phone and fails the others on
// phone.
type Contacts struct {
	URL string

	mu       sync.Mutex
	calls    []Call
	contacts map[string][]client.Contact // tenant → contacts
	fails    []Fail
	seq      int
}

// New starts the fake until the test ends.
func New(t testing.TB) *Contacts {
	f := &Contacts{contacts: map[string][]client.Contact{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/contacts/search", f.guard(f.search))
	mux.HandleFunc("GET /internal/v1/contacts/{id}", f.guard(f.contact))
	mux.HandleFunc("POST /internal/v1/contacts/find-or-create", f.guard(f.findOrCreate))
	mux.HandleFunc("POST /internal/v1/contacts/bulk-upsert", f.guard(f.bulkUpsert))
	mux.HandleFunc("GET /internal/v1/phones/{id}", f.guard(f.phone))
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

// Add stores a live contact of tenant and returns it.
func (f *Contacts) Add(tenant, externalID, firstName, phone string) client.Contact {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addLocked(tenant, client.ContactInput{ExternalID: externalID, FirstName: firstName, Phone: phone})
}

func (f *Contacts) addLocked(tenant string, in client.ContactInput) client.Contact {
	f.seq++
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := client.Contact{ID: fmt.Sprintf("01JCONTACT%016d", f.seq), Phone: in.Phone, PhoneID: fmt.Sprintf("01JPHONE%018d", f.seq),
		CustomFields: map[string]json.RawMessage{}, CreatedAt: now, UpdatedAt: now}
	if in.ExternalID != "" {
		c.ExternalID = &in.ExternalID
	}
	if in.FirstName != "" {
		c.FirstName = &in.FirstName
	}
	f.contacts[tenant] = append(f.contacts[tenant], c)
	return c
}

// Calls returns the calls received so far.
func (f *Contacts) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
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
		c := Call{Method: r.Method, Path: r.URL.Path, Tenant: breaker.TenantOf(r.Header.Get("Authorization")), Body: body}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		rules := append([]Fail(nil), f.fails...)
		f.mu.Unlock()
		for _, rule := range rules {
			if status := rule(c); status != 0 {
				writeFailure(w, status)
				return
			}
		}
		h(w, r, c)
	}
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

func (f *Contacts) contact(w http.ResponseWriter, r *http.Request, c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ct := range f.contacts[c.Tenant] {
		if ct.ID == r.PathValue("id") {
			writeData(w, http.StatusOK, ct)
			return
		}
	}
	writeFailure(w, http.StatusNotFound)
}

func (f *Contacts) phone(w http.ResponseWriter, r *http.Request, c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ct := range f.contacts[c.Tenant] {
		if ct.PhoneID == r.PathValue("id") {
			writeData(w, http.StatusOK, client.PhoneRecord{ID: ct.PhoneID, Phone: ct.Phone, CreatedAt: ct.CreatedAt})
			return
		}
	}
	writeFailure(w, http.StatusNotFound)
}

func (f *Contacts) findOrCreate(w http.ResponseWriter, _ *http.Request, c Call) {
	var in client.ContactInput
	if err := json.Unmarshal(c.Body, &in); err != nil {
		writeFailure(w, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if in.ExternalID != "" {
		for _, ct := range f.contacts[c.Tenant] {
			if ct.ExternalID != nil && *ct.ExternalID == in.ExternalID && ct.Live() {
				writeData(w, http.StatusOK, map[string]any{"contact": ct, "created": false})
				return
			}
		}
	}
	if in.Phone == "" {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"phone": {"The phone field is required."}})
		return
	}
	writeData(w, http.StatusCreated, map[string]any{"contact": f.addLocked(c.Tenant, in), "created": true})
}

func (f *Contacts) search(w http.ResponseWriter, r *http.Request, c Call) {
	name := strings.ToLower(r.URL.Query().Get("name"))
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []client.Candidate{}
	for _, ct := range f.contacts[c.Tenant] {
		if ct.FirstName != nil && name != "" && strings.Contains(strings.ToLower(*ct.FirstName), name) {
			last4 := ct.Phone
			if len(last4) > 4 {
				last4 = last4[len(last4)-4:]
			}
			out = append(out, client.Candidate{ContactID: ct.ID, ExternalID: ct.ExternalID, FirstName: ct.FirstName, PhoneLast4: last4, Score: 1})
		}
	}
	writeData(w, http.StatusOK, out)
}

func (f *Contacts) bulkUpsert(w http.ResponseWriter, _ *http.Request, c Call) {
	var req client.BulkUpsertRequest
	if err := json.Unmarshal(c.Body, &req); err != nil {
		writeFailure(w, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]client.RowResult, len(req.Items))
	for i, it := range req.Items {
		out[i] = client.RowResult{RowIndex: req.FirstRowIndex + i}
		if it.Phone == "" {
			out[i].Action = client.ActionFailed
			out[i].Errors = map[string][]string{"phone": {"The phone field is required."}}
			continue
		}
		out[i].Action, out[i].ContactID = client.ActionCreated, f.addLocked(c.Tenant, it).ID
	}
	writeData(w, http.StatusOK, out)
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
