package edge_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
)

func TestBodyChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		name   string
		r      req
		status int
		code   string
	}{
		{"invalid json", req{method: http.MethodPost, path: "/api/v1/contacts", body: []byte(`{"a":`), contentType: "application/json"}, 400, "bad_request"},
		{"invalid json, no content type", req{method: http.MethodPut, path: "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", body: []byte(`nope`)}, 400, "bad_request"},
		{"invalid json, +json type", req{method: http.MethodPatch, path: "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", body: []byte(`{]`), contentType: "application/merge-patch+json"}, 400, "bad_request"},
		{"above 1 MB", req{method: http.MethodPost, path: "/api/v1/contacts", body: jsonBody(edge.MaxBody + 1)}, 413, "payload_too_large"},
		{"hosted page above 1 MB", req{method: http.MethodPost, path: "/l/r/x", body: []byte(strings.Repeat("a", edge.MaxBody+1)), contentType: "application/x-www-form-urlencoded"}, 413, "payload_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.r.token = e.token
			wantError(t, do(t, e.url, tt.r), tt.status, tt.code)
		})
	}
}

func TestBodiesThatPass(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		name string
		r    req
	}{
		{"1 MB exactly", req{method: http.MethodPost, path: "/api/v1/contacts", body: jsonBody(edge.MaxBody)}},
		{"batch of 4 MB", req{method: http.MethodPost, path: "/api/v1/contacts/batch", body: jsonBody(4 << 20)}},
		{"json that is not an object (the service answers 422)", req{method: http.MethodPost, path: "/api/v1/contacts", body: []byte(`[1,2]`), contentType: "application/json"}},
		{"form post", req{method: http.MethodPost, path: "/webhooks/sms/inbound", body: []byte("Body=hi&From=x"), contentType: "application/x-www-form-urlencoded"}},
		{"empty post", req{method: http.MethodPost, path: "/api/v1/contacts"}},
		{"identity encoding", req{method: http.MethodPost, path: "/api/v1/contacts", body: []byte(`{"a":1}`), encoding: "identity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.r.token = e.token
			got := do(t, e.url, tt.r)
			if got.status != http.StatusOK || got.echo.BodyLen != len(tt.r.body) {
				t.Fatalf("status %d, upstream got %d bytes of %d (%.200s)", got.status, got.echo.BodyLen, len(tt.r.body), got.body)
			}
		})
	}
}

func TestOversizedBodyWithoutTokenIsUnauthenticatedFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	got := do(t, e.url, req{method: http.MethodPost, path: "/api/v1/contacts", body: jsonBody(edge.MaxBody + 1)})
	wantError(t, got, http.StatusUnauthorized, "unauthenticated")
}

// A body above Fiber's own limit (5 MB) is refused as soon as its
// Content-Length is read, and the connection closed; a client that has not
// finished sending may see the close before the answer, so this test sends
// the head only and reads the answer, as a client waiting on
// "Expect: 100-continue" would.
func TestBodyAboveFiveMegabytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for _, tt := range []struct{ path, code string }{
		{"/api/v1/contacts/batch", "batch_payload_too_large"},
		{"/api/v1/contacts", "payload_too_large"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", tt.path, e.token, edge.MaxBatchBody+1)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got := response{status: resp.StatusCode, header: resp.Header, body: b}
			var env struct {
				Error struct {
					Code      string `json:"code"`
					RequestID string `json:"request_id"`
				} `json:"error"`
			}
			_ = json.Unmarshal(b, &env)
			got.err.Code, got.err.RequestID = env.Error.Code, env.Error.RequestID
			wantError(t, got, http.StatusRequestEntityTooLarge, tt.code)
		})
	}
}
