package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/httpx"
)

// TestBridge: the handler's answers reach the client as it wrote them,
// an event stream whole and in order, a plain-text error as the envelope,
// a panic as a 500 envelope rather than a crash.
func TestBridge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		status   int
		code     string
		body     string
		streamed bool
	}{
		{"json", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "S1")
			w.WriteHeader(http.StatusOK)
			w.Write(body)
		}, http.StatusOK, "", `{"jsonrpc":"2.0"}`, false},
		{"event stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for _, e := range []string{"one", "two", "three"} {
				w.Write([]byte("data: " + e + "\n\n"))
				w.(http.Flusher).Flush()
			}
		}, http.StatusOK, "", "data: one\n\ndata: two\n\ndata: three\n\n", true},
		{"plain-text error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "session not found", http.StatusNotFound)
		}, http.StatusNotFound, "resource_not_found", "", false},
		{"panic", func(w http.ResponseWriter, r *http.Request) {
			panic("broken")
		}, http.StatusInternalServerError, "server_error", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := httpx.NewApp(nil)
			a.Post("/mcp", Bridge(tt.handler))
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0"}`))
			resp, err := a.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.code != "" {
				var env struct{ Error struct{ Code string } }
				if err := json.Unmarshal(body, &env); err != nil || env.Error.Code != tt.code {
					t.Fatalf("body %s, want the envelope with %s", body, tt.code)
				}
				return
			}
			if string(body) != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"; chunked != tt.streamed {
				t.Errorf("transfer encoding %v, streamed %v", resp.TransferEncoding, tt.streamed)
			}
		})
	}
}
