package httpapi_test

import (
	"net/http"
	"net/http/httptest"
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
