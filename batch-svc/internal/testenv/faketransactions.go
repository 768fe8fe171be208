package testenv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TxCall is one bulk-create call the fake transactions-svc received.
type TxCall struct {
	Path               string            `json:"-"`
	BatchID            string            `json:"batch_id"`
	Direction          string            `json:"direction"`
	OnDuplicate        string            `json:"on_duplicate"`
	FirstRowIndex      int               `json:"first_row_index"`
	EmitEvents         bool              `json:"emit_events"`
	CampaignID         string            `json:"campaign_id"`
	AutoAssignCampaign bool              `json:"auto_assign_campaign"`
	Items              []json.RawMessage `json:"items"`
}

// Transactions is a fake transactions-svc: bulk create fails a row without
// an amount (on amount) and creates the others; campaign "C5" has 5 steps,
// auto-assignment finds at most 3, any other campaign is refused (422
// naming campaign_id).
type Transactions struct {
	URL    string
	mu     sync.Mutex
	calls  []TxCall
	marker string
	status int
}

// FailHolding answers status to any bulk create with an item whose raw
// JSON holds marker, as a service failing on one row's content does.
func (f *Transactions) FailHolding(marker string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marker, f.status = marker, status
}

// NewTransactions starts the fake until the test ends.
func NewTransactions(t testing.TB) *Transactions {
	f := &Transactions{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /internal/v1/receivables/bulk-create", f.bulk)
	mux.HandleFunc("POST /internal/v1/payables/bulk-create", f.bulk)
	mux.HandleFunc("GET /internal/v1/campaigns/steps", f.steps)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Calls returns the bulk-create calls received so far.
func (f *Transactions) Calls() []TxCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]TxCall(nil), f.calls...)
}

func (f *Transactions) bulk(w http.ResponseWriter, r *http.Request) {
	var call TxCall
	if err := json.NewDecoder(r.Body).Decode(&call); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	call.Path = r.URL.Path
	f.mu.Lock()
	f.calls = append(f.calls, call)
	marker, status := f.marker, f.status
	f.mu.Unlock()
	if marker != "" {
		for _, it := range call.Items {
			if strings.Contains(string(it), marker) {
				writeFailure(w, status)
				return
			}
		}
	}
	out := make([]map[string]any, len(call.Items))
	for i, raw := range call.Items {
		var item struct {
			Amount int `json:"amount"`
		}
		_ = json.Unmarshal(raw, &item)
		row := call.FirstRowIndex + i
		out[i] = map[string]any{"row_index": row, "action": "created", "id": "T" + strconv.Itoa(row)}
		if item.Amount == 0 {
			out[i] = map[string]any{"row_index": row, "action": "failed",
				"errors": map[string][]string{"amount": {"The amount field is required."}}}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": out})
}

func (f *Transactions) steps(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	steps := 0
	switch {
	case q.Get("campaign_id") == "C5":
		steps = 5
	case q.Get("campaign_id") != "":
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"error":{"code":"validation_failed","message":"invalid","details":{"campaign_id":["The selected campaign is invalid."]}}}`))
		return
	case q.Get("auto_assign") == "true":
		steps = 3
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]int{"steps": steps}})
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
