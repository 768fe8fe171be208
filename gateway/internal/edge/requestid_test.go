package edge_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
)

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const ulid = "01JD3X0Q4Z8W2E5R7T9Y1V3K5N"
	const uuid = "550e8400-e29b-41d4-a716-446655440000"
	tests := []struct {
		name, sent string
		echoed     bool
	}{
		{"ulid", ulid, true},
		{"uuid", uuid, true},
		{"100 characters", strings.Repeat("a", 100), false},
		{"not an id", "hello", false},
		{"lower-case ulid", strings.ToLower(ulid), false},
		{"none", "", false},
	}
	for _, tt := range tests {
		for _, r := range []req{
			{path: "/api/v1/healthcheck/app"},          // success
			{path: "/api/v1/nope"},                     // 404
			{path: "/api/v1/contacts"},                 // 401
			{path: "/api/v1/contacts", token: e.token}, // forwarded
		} {
			t.Run(tt.name+" "+r.path+" "+r.token, func(t *testing.T) {
				t.Parallel()
				r.requestID = tt.sent
				got := do(t, e.url, r)
				id := got.header.Get("X-Request-Id")
				if tt.echoed && id != tt.sent {
					t.Errorf("X-Request-Id = %q, want %q echoed", id, tt.sent)
				}
				if !tt.echoed && (id == tt.sent || !ids.Valid(id)) {
					t.Errorf("X-Request-Id = %q, want a new ULID", id)
				}
				if got.status >= 400 && got.err.RequestID != id {
					t.Errorf("error.request_id = %q, want %q", got.err.RequestID, id)
				}
				if got.status == http.StatusOK && r.token != "" && got.echo.RequestID != id {
					t.Errorf("upstream got request id %q, want %q", got.echo.RequestID, id)
				}
			})
		}
	}
}
