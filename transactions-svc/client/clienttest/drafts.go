package clienttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
)

// Transaction is what the fake knows of a transaction: its id, its
// receivable's or payable's id, direction, status and money.
type Transaction struct {
	ID, ChildID, Direction, Status string
	Amount                         int64
	Currency                       string

	externalID string // of an item a bulk create made
}

// Request is one request the fake received.
type Request struct {
	Method, Path, Query string
	// Token is the bearer token it carried, IdempotencyKey its
	// Idempotency-Key, Body its JSON body (nil when none), Raw the body as
	// sent.
	Token, IdempotencyKey string
	Body                  map[string]any
	Raw                   []byte
}

// AddTransaction makes tenant's transaction tx known.
func (f *Fake) AddTransaction(tenantID string, tx Transaction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.txns[tenantID] = append(f.txns[tenantID], &tx)
}

// Transactions returns tenant's transactions, oldest first.
func (f *Fake) Transactions(tenantID string) []Transaction {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Transaction, len(f.txns[tenantID]))
	for i, tx := range f.txns[tenantID] {
		out[i] = *tx
	}
	return out
}

// RefuseContact makes a prepare naming contact id a 422 on contact_id, as
// transactions-svc answers for a contact that is not a live one.
func (f *Fake) RefuseContact(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused[id] = true
}

// FailTenant answers every later call of tenant with status (an error
// envelope, code server_error for a 5xx, bad_request otherwise).
func (f *Fake) FailTenant(tenantID string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fails[tenantID] = status
}

// Requests returns the requests received so far.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Last returns the last request to path (zero when none).
func (f *Fake) Last(path string) Request {
	reqs := f.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Path == path {
			return reqs[i]
		}
	}
	return Request{}
}

// CallsOf returns how many requests tenant made.
func (f *Fake) CallsOf(tenantID string) int {
	n := 0
	for _, r := range f.Requests() {
		if tenantOf(&http.Request{Header: http.Header{"Authorization": {"Bearer " + r.Token}}}) == tenantID {
			n++
		}
	}
	return n
}

// guard records a request and answers SetDown's 503 or FailTenant's status
// before next.
func (f *Fake) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Token: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), IdempotencyKey: r.Header.Get("Idempotency-Key")}
		req.Raw = raw
		_ = json.Unmarshal(raw, &req.Body)
		r.Body = io.NopCloser(strings.NewReader(string(raw)))
		f.mu.Lock()
		f.requests = append(f.requests, req)
		down, status := f.down, f.fails[tenantOf(r)]
		for _, rule := range f.rules {
			if status != 0 {
				break
			}
			status = rule(req)
		}
		f.mu.Unlock()
		switch {
		case down:
			writeError(w, http.StatusServiceUnavailable, "service_unavailable", "transactions-svc is unavailable.")
		case status >= 500:
			writeError(w, status, "server_error", "Server error.")
		case status != 0:
			writeError(w, status, "bad_request", "The request was refused.")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// find returns tenant's transaction a reference names (its id or its
// receivable's or payable's id), or nil. The caller holds f.mu.
func (f *Fake) find(tenantID, ref string) *Transaction {
	for _, tx := range f.txns[tenantID] {
		if tx.ID == ref || tx.ChildID == ref {
			return tx
		}
	}
	return nil
}

func (f *Fake) prepare(w http.ResponseWriter, r *http.Request) {
	var in client.DraftInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.")
		return
	}
	if in.Direction != client.DirectionReceivable && in.Direction != client.DirectionPayable {
		writeErrorDetails(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"direction": {"The selected direction is invalid."}})
		return
	}
	if !holds(r, "api:create-"+in.Direction) {
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused[in.ContactID] {
		writeErrorDetails(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"contact_id": {"The selected contact_id is invalid."}})
		return
	}
	tx := &Transaction{ID: ids.New(), ChildID: ids.New(), Direction: in.Direction, Status: "draft", Amount: in.Amount, Currency: in.Currency}
	if tx.Currency == "" {
		tx.Currency = "USD"
	}
	tenant := tenantOf(r)
	f.txns[tenant] = append(f.txns[tenant], tx)
	d := client.Draft{TransactionID: tx.ID, Direction: tx.Direction, Status: tx.Status,
		Preview:   client.Preview{RecipientName: "Jane Doe", PhoneLast4: "0123", AmountFormatted: "$" + money(tx.Amount), MessagePreview: "Hi Jane"},
		ExpiresAt: time.Now().UTC().Add(24 * time.Hour).Format(time.RFC3339)}
	if tx.Direction == client.DirectionReceivable {
		d.ReceivableID = &tx.ChildID
	} else {
		d.PayableID = &tx.ChildID
	}
	writeData(w, http.StatusCreated, d)
}

func (f *Fake) confirm(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SendAt *time.Time `json:"send_at"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil && err != io.EOF {
		writeErrorDetails(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"send_at": {"The send at is not a valid date."}})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tx := f.find(tenantOf(r), r.PathValue("id"))
	to := "pending"
	if in.SendAt != nil && in.SendAt.After(time.Now()) {
		to = "scheduled"
	}
	switch {
	case tx == nil || tx.ID != r.PathValue("id"):
		writeError(w, http.StatusNotFound, "resource_not_found", "The transaction was not found.")
	case !holds(r, "api:create-"+tx.Direction):
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.")
	case tx.Status != "draft":
		writeErrorDetails(w, http.StatusUnprocessableEntity, "invalid_transition", tx.Status+" -> "+to,
			map[string]string{"from": tx.Status, "to": to})
	default:
		tx.Status = to
		writeData(w, http.StatusOK, client.Confirmed{TransactionID: tx.ID, Status: tx.Status})
	}
}

func (f *Fake) status(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tx := f.find(tenantOf(r), r.PathValue("id"))
	switch {
	case tx == nil:
		writeError(w, http.StatusNotFound, "resource_not_found", "The transaction was not found.")
	case !holds(r, "api:view-"+tx.Direction):
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.")
	default:
		writeData(w, http.StatusOK, client.Status{TransactionID: tx.ID, Direction: tx.Direction, Status: tx.Status,
			Amount: tx.Amount, Currency: tx.Currency})
	}
}

// money formats minor units as major.minor.
func money(minor int64) string { return fmt.Sprintf("%d.%02d", minor/100, minor%100) }
