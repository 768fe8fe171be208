// Package testenv runs batch-svc for tests the way a deployment does: Run
// on a fresh migrated database (libs/testkit), listeners on port 0,
// internal tokens verified against a JWKS served over HTTP, and a fake
// contacts-svc that speaks the bulk-upsert contract (it stands in for the
// downstream service, not for the database).
package testenv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/breaker"
)

// BulkCall is one bulk-upsert call the fake received.
type BulkCall struct {
	BatchID       string            `json:"batch_id"`
	OnDuplicate   string            `json:"on_duplicate"`
	FirstRowIndex int               `json:"first_row_index"`
	EmitEvents    bool              `json:"emit_events"`
	Items         []json.RawMessage `json:"items"`
}

type rowResult struct {
	RowIndex  int                 `json:"row_index"`
	ContactID string              `json:"contact_id,omitempty"`
	Action    string              `json:"action"`
	Errors    map[string][]string `json:"errors,omitempty"`
}

// Contacts is a fake contacts-svc bulk upsert: a row without a phone, or
// with phone "bad", fails on phone; a row repeating an earlier external id
// of the batch follows on_duplicate; every row is recorded under (batch,
// row index) and answered from the record when sent again, as the real
// service does. Status, when set, answers every call with that status
// instead; MaxBody, when set, answers 413 to a body above it before
// reading it, as the real service's body cap does.
type Contacts struct {
	URL string

	mu      sync.Mutex
	calls   []BulkCall
	record  map[string]rowResult // batch id/row index → result
	writes  map[string]int       // batch id/row index → times written
	ext     map[string]string    // batch id/external id → contact id
	status  int
	maxBody int
	refused int
	onWrite func(BulkCall)
	rules   []Rule
}

// Rule chooses an error answer for a whole call of tenant (0: answer
// normally), as a downstream failing on a request's content does.
type Rule func(tenant string, call BulkCall) int

// FailWhen adds a rule; the first rule answering a status wins. A 422
// answers validation_failed naming external_id, a 5xx server_error.
func (f *Contacts) FailWhen(rule Rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, rule)
}

// Holding returns a rule answering status to any call with an item whose
// raw JSON holds marker.
func Holding(marker string, status int) Rule {
	return func(_ string, call BulkCall) int {
		for _, it := range call.Items {
			if strings.Contains(string(it), marker) {
				return status
			}
		}
		return 0
	}
}

// NewContacts starts the fake until the test ends.
func NewContacts(t testing.TB) *Contacts {
	f := &Contacts{record: map[string]rowResult{}, writes: map[string]int{}, ext: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// SetStatus makes every later call answer status (0: answer normally).
func (f *Contacts) SetStatus(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

// SetMaxBody makes later calls with a body above n bytes answer 413
// (0: no cap).
func (f *Contacts) SetMaxBody(n int) {
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

// OnWrite runs fn after a call's rows are recorded, before it answers.
func (f *Contacts) OnWrite(fn func(BulkCall)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onWrite = fn
}

// Calls returns the calls received so far.
func (f *Contacts) Calls() []BulkCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BulkCall(nil), f.calls...)
}

// Writes returns how many times each row of the batch was written.
func (f *Contacts) Writes(batchID string, rows int) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]int, rows)
	for i := range out {
		out[i] = f.writes[batchID+"/"+strconv.Itoa(i)]
	}
	return out
}

func (f *Contacts) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/internal/v1/contacts/bulk-upsert" || r.Header.Get("Authorization") == "" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	tooLarge := f.maxBody > 0 && r.ContentLength > int64(f.maxBody)
	if tooLarge {
		f.refused++
	}
	f.mu.Unlock()
	if tooLarge {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = w.Write([]byte(`{"error":{"code":"payload_too_large","message":"The request body is too large."}}`))
		return
	}
	var call BulkCall
	if err := json.NewDecoder(r.Body).Decode(&call); err != nil {
		http.Error(w, `{"error":{"code":"bad_request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, call)
	tenant := breaker.TenantOf(r.Header.Get("Authorization"))
	for _, rule := range f.rules {
		if status := rule(tenant, call); status != 0 {
			f.mu.Unlock()
			writeFailure(w, status)
			return
		}
	}
	if f.status != 0 {
		status := f.status
		f.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":{"code":"server_error","message":"fake"}}`))
		return
	}
	out := make([]rowResult, len(call.Items))
	for i, raw := range call.Items {
		out[i] = f.row(call, call.FirstRowIndex+i, raw)
	}
	hook := f.onWrite
	f.mu.Unlock()
	if hook != nil {
		hook(call)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": out})
}

// writeFailure answers an error envelope of status.
func writeFailure(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	switch {
	case status == http.StatusUnprocessableEntity:
		_, _ = w.Write([]byte(`{"error":{"code":"validation_failed","message":"The given data was invalid.","details":{"external_id":["The external id must not contain a NUL character."]}}}`))
	case status >= 500:
		_, _ = w.Write([]byte(`{"error":{"code":"server_error","message":"Server error."}}`))
	default:
		_, _ = w.Write([]byte(`{"error":{"code":"bad_request","message":"Refused."}}`))
	}
}

// row decides (or replays) one row; f.mu is held.
func (f *Contacts) row(call BulkCall, index int, raw json.RawMessage) rowResult {
	key := call.BatchID + "/" + strconv.Itoa(index)
	if r, ok := f.record[key]; ok {
		return r
	}
	var item struct {
		ExternalID string `json:"external_id"`
		Phone      string `json:"phone"`
	}
	_ = json.Unmarshal(raw, &item)
	r := rowResult{RowIndex: index, Action: "created", ContactID: "C" + key}
	switch {
	case item.Phone == "" || item.Phone == "bad":
		r = rowResult{RowIndex: index, Action: "failed", Errors: map[string][]string{
			"phone": {"The phone field is required.", "The phone must be a valid number."}}}
	case item.ExternalID != "" && f.ext[call.BatchID+"/"+item.ExternalID] != "":
		r = f.duplicate(call, index, f.ext[call.BatchID+"/"+item.ExternalID])
	}
	if r.Action == "created" || r.Action == "updated" {
		f.writes[key]++
		if item.ExternalID != "" {
			f.ext[call.BatchID+"/"+item.ExternalID] = r.ContactID
		}
	}
	f.record[key] = r
	return r
}

func (f *Contacts) duplicate(call BulkCall, index int, id string) rowResult {
	switch call.OnDuplicate {
	case "fail":
		return rowResult{RowIndex: index, Action: "failed", Errors: map[string][]string{
			"external_id": {"The external id has already been taken."}}}
	case "skip":
		return rowResult{RowIndex: index, Action: "skipped", ContactID: id}
	}
	return rowResult{RowIndex: index, Action: "updated", ContactID: id}
}
