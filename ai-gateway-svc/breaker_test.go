package aigatewaysvc_test

import (
	"net/http"
	"testing"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	"github.com/paylane/paylane/ai-gateway-svc/internal/testenv"
	"github.com/paylane/paylane/contacts-svc/client/clienttest"
)

// TestOneTenantsFailingPeerNeverFailsAnother: contacts-svc and
// transactions-svc answer 500 to every call of tenant A. A's calls answer
// 503, and once A's breakers open they no longer reach the peers; tenant
// B's resolve-contact and prepare keep answering 200 and 201.
func TestOneTenantsFailingPeerNeverFailsAnother(t *testing.T) {
	t.Parallel()
	fake := clienttest.New(t)
	s := testenv.Start(t, func(c *aigatewaysvc.Config) { c.ContactsURL = fake.URL })
	fake.FailTenant("A", http.StatusInternalServerError)
	fake.Add("B", "cust-1", "Jane", "+15550100123")
	s.Txns.FailTenant("A", http.StatusInternalServerError)
	a := s.Token(t, "A", true, all()...)
	b := s.Token(t, "B", true, all()...)
	for range 8 {
		if r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", a, map[string]any{"name": "Jane"}); r.Status != 503 || r.Code() != "service_unavailable" {
			t.Fatalf("A resolve = %d %s, want 503", r.Status, r.Body)
		}
		if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", a,
			map[string]any{"direction": "receivable", "contact_id": "C1", "amount": 100}); r.Status != 503 {
			t.Fatalf("A prepare = %d %s, want 503", r.Status, r.Body)
		}
	}
	if n := fake.CallsOf("A"); n != 5 {
		t.Errorf("A reached contacts-svc %d times, want 5 (then its breaker opened)", n)
	}
	if n := s.Txns.CallsOf("A"); n != 5 {
		t.Errorf("A reached transactions-svc %d times, want 5 (then its breaker opened)", n)
	}
	for i := range 24 {
		r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", b, map[string]any{"name": "Jane"})
		if r.Status != http.StatusOK || !contains(r.Body, `"status":"matched"`) {
			t.Fatalf("B resolve %d while A's breakers are open = %d %s, want 200 matched", i, r.Status, r.Body)
		}
		r = s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", b,
			map[string]any{"direction": "receivable", "contact_id": "C1", "amount": 100})
		if r.Status != http.StatusCreated {
			t.Fatalf("B prepare %d while A's breakers are open = %d %s, want 201", i, r.Status, r.Body)
		}
	}
}

// TestPeerRefusalsPassThroughAndNeverOpen: whatever 4xx a peer answers
// reaches the caller as that 4xx, never 503, however many in a row.
func TestPeerRefusalsPassThroughAndNeverOpen(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 404, 409, 422, 429} {
		fake := clienttest.New(t)
		s := testenv.Start(t, func(c *aigatewaysvc.Config) { c.ContactsURL = fake.URL })
		fake.FailTenant("A", status)
		s.Txns.FailTenant("A", status)
		a := s.Token(t, "A", true, all()...)
		for range 10 {
			if r := s.Do(t, http.MethodPost, "/api/v1/gateway/resolve-contact", a, map[string]any{"name": "Jane"}); r.Status != status {
				t.Fatalf("resolve refused %d = %d %s", status, r.Status, r.Body)
			}
			if r := s.Do(t, http.MethodPost, "/api/v1/gateway/contacts", a, map[string]any{"first_name": "J", "phone": "+15550100123"}); r.Status != status {
				t.Fatalf("create contact refused %d = %d %s", status, r.Status, r.Body)
			}
			if r := s.Do(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", a,
				map[string]any{"direction": "receivable", "contact_id": "C1", "amount": 100}); r.Status != status {
				t.Fatalf("prepare refused %d = %d %s", status, r.Status, r.Body)
			}
			if r := s.Do(t, http.MethodGet, "/api/v1/gateway/transactions/T1/status", a, nil); r.Status != status {
				t.Fatalf("status refused %d = %d %s", status, r.Status, r.Body)
			}
		}
		if n := fake.CallsOf("A"); n != 20 {
			t.Errorf("%d: contacts-svc called %d times, want 20 (no breaker opened)", status, n)
		}
	}
}
