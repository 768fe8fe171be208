package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkGetContact measures GET /api/v1/contacts/{id} through the Fiber
// app: token check (cached after the first), ability gate, one read-only
// tenant-scoped transaction on real Postgres, rendering.
func BenchmarkGetContact(b *testing.B) {
	e := newEnv(b)
	c := e.create(b, tenantA, `{"first_name":"Ada","last_name":"Lovelace","phone":"+14155550100"}`)
	tok := e.token(b, tenantA, all()...)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/contacts/"+c.ID, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := e.app.Test(req, -1)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status = %d", resp.StatusCode)
		}
	}
}

// BenchmarkCreateContact measures POST /api/v1/contacts with a fresh
// Idempotency-Key and a new number each time, as the write benchmark sends
// it: the one-shot path (phone record, contact, outbox row and stored
// response in one round trip) on real Postgres.
func BenchmarkCreateContact(b *testing.B) {
	e := newEnv(b)
	tok := e.token(b, tenantA, all()...)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := `{"first_name":"Bench","last_name":"Write","phone":"` + e.phone() + `","email":"bench@example.com"}`
		req := httptest.NewRequest(http.MethodPost, "/api/v1/contacts", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "bench-"+strconv.Itoa(i))
		resp, err := e.app.Test(req, -1)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("status = %d", resp.StatusCode)
		}
	}
}
