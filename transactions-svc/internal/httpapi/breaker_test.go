package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// TestOneTenantsFailingContactsNeverFailsAnother: contacts-svc answers 500
// to every call of tenant A (its input breaks it). A's creates fail, and
// once A's breaker opens they fail fast with 503; tenant B's creates keep
// answering 201 all along, and neither A's 500s nor a 422 ever open B's.
func TestOneTenantsFailingContactsNeverFailsAnother(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	fake := clienttest.New(t)
	e.UseContacts(t, fake.URL)
	a, b := ids.New(), ids.New()
	fake.Add(b, "cust-1", "Ada", "+14155550123")
	fake.FailTenant(a, http.StatusInternalServerError)
	body := `{"contact":{"external_id":"cust-1"},"amount":100}`
	for i := range 10 {
		r := e.Do(t, http.MethodPost, "/api/v1/receivables", e.Token(t, a), body)
		// contacts-svc's 500 is a failure of this input, not an outage:
		// 500, not 503 (retrying the same request would fail the same way).
		if i < 5 && (r.Status != http.StatusInternalServerError || r.Code(t) != "server_error") {
			t.Errorf("tenant A create %d = %d %s, want 500 server_error", i, r.Status, r.Body)
		}
		if i >= 5 && (r.Status != http.StatusServiceUnavailable || r.Code(t) != "service_unavailable") {
			t.Errorf("tenant A create %d = %d %s, want 503 from its open breaker", i, r.Status, r.Body)
		}
	}
	if n := fake.CallsOf(a); n != 5 {
		t.Errorf("tenant A reached contacts-svc %d times, want 5 (then its breaker opened)", n)
	}
	for i := range 24 {
		r := e.Do(t, http.MethodPost, "/api/v1/receivables", e.Token(t, b), body)
		if r.Status != http.StatusCreated {
			t.Fatalf("tenant B create %d while A's breaker is open = %d %s, want 201", i, r.Status, r.Body)
		}
	}
}

// TestContactsRefusalsNeverOpenTheBreaker: a contacts-svc 4xx is an answer
// to the caller's input: twenty of them in a row open nothing, and the
// tenant's next valid create is 201.
func TestContactsRefusalsNeverOpenTheBreaker(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnprocessableEntity, http.StatusNotFound, http.StatusConflict, http.StatusTooManyRequests, http.StatusBadRequest} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			fake := clienttest.New(t)
			e.UseContacts(t, fake.URL)
			tenant := ids.New()
			fake.Add(tenant, "cust-1", "Ada", "+14155550123")
			fake.FailWhen(func(c clienttest.Call) int {
				if strings.Contains(string(c.Body), "bad-") {
					return status
				}
				return 0
			})
			tok := e.Token(t, tenant)
			for i := range 20 {
				r := e.Do(t, http.MethodPost, "/api/v1/receivables", tok, `{"contact":{"external_id":"bad-1"},"amount":100}`)
				if r.Status == http.StatusServiceUnavailable || r.Status < 400 {
					t.Fatalf("create %d refused %d by contacts-svc = %d %s, want the refusal, never 503", i, status, r.Status, r.Body)
				}
			}
			r := e.Do(t, http.MethodPost, "/api/v1/receivables", tok, `{"contact":{"external_id":"cust-1"},"amount":100}`)
			expect(t, r, http.StatusCreated, "")
		})
	}
}
