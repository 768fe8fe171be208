package aigatewaysvc_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	"github.com/paylane/paylane/ai-gateway-svc/internal/testenv"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

const (
	viewAnyContact   = "api:view-any-contact"
	createContact    = "api:create-contact"
	createReceivable = "api:create-receivable"
	viewReceivable   = "api:view-receivable"
	createPayable    = "api:create-payable"
)

// all is every ability the gateway's routes need.
func all() []string {
	return []string{viewAnyContact, createContact, createReceivable, viewReceivable, createPayable, "api:view-payable"}
}

func TestEveryRouteIsForbiddenWhileTheFlagIsOff(t *testing.T) {
	s := testenv.Start(t, nil)
	off := s.Token(t, "t1", false, all()...)
	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/gateway/resolve-contact"},
		{http.MethodPost, "/api/v1/gateway/contacts"},
		{http.MethodPost, "/api/v1/gateway/transactions/prepare"},
		{http.MethodPost, "/api/v1/gateway/transactions/T1/confirm"},
		{http.MethodGet, "/api/v1/gateway/transactions/T1/status"},
	} {
		// An invalid body too: the flag is checked before anything else.
		var body any
		if r.method == http.MethodPost {
			body = map[string]any{"direction": "sideways"}
		}
		if got := s.Do(t, r.method, r.path, off, body); got.Status != http.StatusForbidden || got.Code() != "forbidden" {
			t.Errorf("%s %s = %d %s, want 403 forbidden", r.method, r.path, got.Status, got.Body)
		}
	}
	if n := len(s.Contacts.Calls()) + s.Txns.Calls(); n != 0 {
		t.Errorf("peers called %d times with the flag off", n)
	}
	if got := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/T1/status", "nope", nil); got.Status != http.StatusUnauthorized {
		t.Errorf("bad token = %d, want 401", got.Status)
	}
}

func TestResolveContactClassifies(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, viewAnyContact)
	s.Candidates("t1", "Jane Doe", 1, 0.35)
	s.Candidates("t1", "Jo", 0.7, 0.65)
	s.Candidates("t1", "Jan", 0.4)
	for _, c := range []struct {
		body map[string]any
		want string
		n    int
	}{
		{map[string]any{"name": "Jane Doe"}, "matched", 2},
		{map[string]any{"name": "Jo"}, "ambiguous", 2},
		{map[string]any{"name": "Jan"}, "ambiguous", 1},
		{map[string]any{"name": "Jan", "phone": "+15550100123"}, "matched", 1},
		{map[string]any{"name": "Nobody"}, "not_found", 0},
	} {
		r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", tok, c.body)
		var env struct {
			Data struct {
				Status     string           `json:"status"`
				Candidates []map[string]any `json:"candidates"`
			} `json:"data"`
		}
		r.JSON(t, &env)
		if r.Status != http.StatusOK || env.Data.Status != c.want || len(env.Data.Candidates) != c.n {
			t.Errorf("%v = %d %s, want %s with %d candidates", c.body, r.Status, r.Body, c.want, c.n)
		}
		for _, cand := range env.Data.Candidates {
			if _, ok := cand["external_id"]; ok || cand["contact_id"] == nil || cand["phone_last4"] != "0123" {
				t.Errorf("candidate %v is not the contract's shape", cand)
			}
		}
	}
	if q := s.Contacts.Last("/internal/v1/contacts/search"); q.Token != tok {
		t.Errorf("search did not forward the caller's token")
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", tok, map[string]any{"phone": "1"}); r.Status != 422 || r.Code() != "validation_failed" {
		t.Errorf("no name = %d %s, want 422", r.Status, r.Body)
	}
	noAbility := s.Token(t, "t1", true, createContact)
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", noAbility, map[string]any{"name": "Jo"}); r.Status != 403 {
		t.Errorf("without view-any-contact = %d, want 403", r.Status)
	}
}

func TestCreateContact(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, createContact)
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/contacts", tok,
		map[string]any{"first_name": "Jane", "last_name": "Doe", "phone": "+14155550123"}, "Idempotency-Key", "k-contact")
	var env struct{ Data map[string]any }
	r.JSON(t, &env)
	made := s.Contacts.Contacts("t1")
	if r.Status != http.StatusCreated || len(made) != 1 || env.Data["id"] != made[0].ID || env.Data["first_name"] != "Jane" {
		t.Fatalf("create = %d %s; contacts-svc holds %+v", r.Status, r.Body, made)
	}
	// Times as every response shows them: UTC with milliseconds (contract section 2).
	want := made[0].CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z")
	if env.Data["created_at"] != want || env.Data["updated_at"] != want {
		t.Errorf("created_at, updated_at = %v, %v; want %s", env.Data["created_at"], env.Data["updated_at"], want)
	}
	call := s.Contacts.Last("/internal/v1/contacts/find-or-create")
	var sent map[string]any
	if err := json.Unmarshal(call.Body, &sent); err != nil || call.IdempotencyKey != "k-contact" || call.Token != tok || sent["external_id"] != nil {
		t.Errorf("find-or-create call = %+v (%v)", call, err)
	}
	r = s.Do(t, http.MethodPost, "/api/v1/gateway/contacts", tok, map[string]any{"first_name": "Jane"})
	if r.Status != 422 || r.Code() != "validation_failed" || !contains(r.Body, `"phone":["The phone field is required."]`) {
		t.Errorf("no phone = %d %s, want the downstream 422 with its fields", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/contacts", tok, map[string]any{"first_name": 5}); r.Status != 422 {
		t.Errorf("bad type = %d, want 422", r.Status)
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/contacts", s.Token(t, "t1", true, viewAnyContact),
		map[string]any{"phone": "1"}); r.Status != 403 {
		t.Errorf("without create-contact = %d, want 403", r.Status)
	}
}

func TestPrepare(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, createReceivable)
	body := map[string]any{"direction": "receivable", "contact_id": "C1", "amount": 1250, "currency": "USD"}
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok, body, "Idempotency-Key", "k-prep")
	var env struct{ Data map[string]any }
	r.JSON(t, &env)
	drafts := s.Txns.Transactions("t1")
	draft := drafts[len(drafts)-1]
	if r.Status != http.StatusCreated || env.Data["transaction_id"] != draft.ID || env.Data["receivable_id"] != draft.ChildID ||
		env.Data["status"] != "draft" || env.Data["preview"] == nil || env.Data["expires_at"] == nil {
		t.Fatalf("prepare = %d %s; transactions-svc's newest %+v", r.Status, r.Body, draft)
	}
	if _, ok := env.Data["payable_id"]; ok {
		t.Errorf("a receivable draft shows payable_id: %s", r.Body)
	}
	call := s.Txns.Last("/internal/v1/drafts")
	if call.IdempotencyKey != "k-prep" || call.Token != tok || call.Body["amount"] != 1250.0 {
		t.Errorf("drafts call = %+v", call)
	}
	body["direction"] = "payable"
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok, body); r.Status != 403 {
		t.Errorf("payable without create-payable = %d, want 403", r.Status)
	}
	body["direction"] = "sideways"
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok, body); r.Status != 422 || !contains(r.Body, `"direction"`) {
		t.Errorf("bad direction = %d %s, want 422 naming direction", r.Status, r.Body)
	}
	body["direction"], body["contact_id"] = "receivable", "missing"
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok, body); r.Status != 422 || !contains(r.Body, `"contact_id"`) {
		t.Errorf("unknown contact = %d %s, want the downstream 422", r.Status, r.Body)
	}
}

func TestConfirm(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, createReceivable, viewReceivable, "api:view-payable")
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T1/confirm", tok, map[string]any{}, "Idempotency-Key", "k-conf")
	if r.Status != http.StatusOK || string(r.Body) != `{"data":{"transaction_id":"T1","status":"pending"}}` {
		t.Fatalf("confirm = %d %s", r.Status, r.Body)
	}
	if call := s.Txns.Last("/internal/v1/transactions/T1/confirm"); call.IdempotencyKey != "k-conf" || call.Token != tok {
		t.Errorf("confirm call = %+v", call)
	}
	r = s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T2/confirm", tok, map[string]any{"send_at": "2030-01-01T10:00:00Z"})
	if r.Status != 422 || r.Code() != "invalid_transition" || !contains(r.Body, `"details":{"from":"pending","to":"scheduled"}`) {
		t.Errorf("non-draft = %d %s, want 422 invalid_transition", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T404/confirm", tok, nil); r.Status != 404 || r.Code() != "resource_not_found" {
		t.Errorf("unknown = %d %s, want 404", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T3/confirm", tok, nil); r.Status != 403 {
		t.Errorf("payable without create-payable = %d, want 403", r.Status)
	}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T1/confirm", tok, map[string]any{"send_at": "soon"}); r.Status != 422 {
		t.Errorf("bad send_at = %d, want 422", r.Status)
	}
	if n := s.Txns.Calls(); n != 6 {
		t.Errorf("transactions-svc got %d calls, want 6 (no confirm after a refused gate)", n)
	}
	// A caller that may create but not view receivables: the status read is
	// refused, so transactions-svc's confirm applies the create gate itself.
	// T1 is pending now; T4 is another draft.
	s.Txns.AddTransaction("t1", transactionstest.Transaction{ID: "T4", ChildID: "R4", Direction: "receivable", Status: "draft", Amount: 100, Currency: "USD"})
	createOnly := s.Token(t, "t1", true, createReceivable)
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T4/confirm", createOnly, nil); r.Status != http.StatusOK {
		t.Errorf("create-only confirm = %d %s, want 200", r.Status, r.Body)
	}
	viewOnly := s.Token(t, "t1", true, viewReceivable)
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T1/confirm", viewOnly, nil); r.Status != http.StatusForbidden {
		t.Errorf("view-only confirm = %d %s, want 403", r.Status, r.Body)
	}
	nothing := s.Token(t, "t1", true)
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/T1/confirm", nothing, nil); r.Status != http.StatusForbidden {
		t.Errorf("confirm without abilities = %d %s, want 403", r.Status, r.Body)
	}
}

func TestStatus(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, viewReceivable)
	r := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/R1/status", tok, nil)
	want := `{"data":{"transaction_id":"T1","direction":"receivable","status":"draft","amount":1250,"currency":"USD","latest_message":null}}`
	if r.Status != http.StatusOK || string(r.Body) != want {
		t.Fatalf("status = %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/T3/status", tok, nil); r.Status != 403 {
		t.Errorf("payable without view-payable = %d, want 403", r.Status)
	}
	if r := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/nope/status", tok, nil); r.Status != 404 {
		t.Errorf("unknown = %d, want 404", r.Status)
	}
}

func TestUnreachablePeerIs503(t *testing.T) {
	s := testenv.Start(t, func(c *aigatewaysvc.Config) { c.TransactionsURL = "http://127.0.0.1:1" })
	tok := s.Token(t, "t1", true, viewReceivable)
	r := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/T1/status", tok, nil)
	if r.Status != http.StatusServiceUnavailable || r.Code() != "service_unavailable" || r.Header.Get("Retry-After") == "" {
		t.Errorf("unreachable = %d %s, want 503 service_unavailable with Retry-After", r.Status, r.Body)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (aigatewaysvc.Config{}).Validate(); err == nil {
		t.Error("an empty configuration validated")
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
