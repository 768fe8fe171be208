package edge_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/peertest"
	"github.com/paylane/paylane/libs/obs"
)

// TestForwardedRequestsCarryTheGatewaysTrace: a client's traceparent and
// tracestate never pass the edge; the service gets the gateway's own trace,
// the one the gateway's access line names, with the route pattern, status
// and tenant.
func TestForwardedRequestsCarryTheGatewaysTrace(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	e := newEnv(t, func(cfg *edge.Config, _ *env) {
		cfg.Logger = obs.NewLogger("gateway", &logs, slog.LevelInfo)
	})
	const clientTrace = "0af7651916cd43dd8448eb211c80319c"
	hr, err := http.NewRequest(http.MethodGet, e.url+"/api/v1/contacts?phone=%2B15555550123", nil)
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+e.token)
	hr.Header.Set("traceparent", "00-"+clientTrace+"-b7ad6b7169203331-01")
	hr.Header.Set("tracestate", "vendor=client")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var echo peertest.Echo
	if err := json.Unmarshal(body, &echo); err != nil {
		t.Fatal(err)
	}
	forwarded := obs.TraceIDOf(echo.TraceParent)
	if forwarded == "" || forwarded == clientTrace {
		t.Errorf("upstream traceparent = %q: want the gateway's own trace, not the client's", echo.TraceParent)
	}
	if echo.TraceState != "" {
		t.Errorf("the client's tracestate %q reached the upstream", echo.TraceState)
	}

	var access map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" {
			access = rec
		}
	}
	if access == nil {
		t.Fatalf("no access line: %s", logs.String())
	}
	for k, want := range map[string]any{
		"trace_id": forwarded, "route": "/api/v1/contacts", "status": float64(200), "method": "GET", "tenant": "TENANT1",
	} {
		if access[k] != want {
			t.Errorf("access line %s = %v, want %v (line %v)", k, access[k], want, access)
		}
	}
	if _, ok := access["path"]; ok || strings.Contains(logs.String(), "5555550123") {
		t.Errorf("the access line carries the path: %v", access)
	}
}
