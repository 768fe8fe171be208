package obs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

func TestNewLogger(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := obs.NewLogger("contacts-svc", &buf, slog.LevelInfo)
	log.Debug("hidden")
	log.Info("sent", "to", "+15551234567", "token", "pl_1|secret", "internal_token", "eyJ",
		"token_id", 12, "error", errors.New("dial +15551234567 failed"),
		"path", "/api/v1/contacts?phone=%28415%29%20354-6544", "reason", "number +1 415 585 4147 refused")

	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("one JSON record expected (debug filtered), got %q: %v", buf.String(), err)
	}
	want := map[string]any{
		"service": "contacts-svc", "msg": "sent", "to": "+*******4567", "token": "redacted",
		"internal_token": "redacted", "token_id": float64(12), "error": "dial +*******4567 failed",
		"path": "/api/v1/contacts?phone=%28***%29%20***-6544", "reason": "number +* *** *** 4147 refused",
	}
	for k, w := range want {
		if diff := cmp.Diff(w, rec[k]); diff != "" {
			t.Errorf("attr %s (-want +got):\n%s", k, diff)
		}
	}
}

func TestNewLoggerAddsTheContextsIDsOnce(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := obs.NewLogger("gateway", &buf, slog.LevelInfo)
	ctx := obs.WithTraceParent(reqid.With(context.Background(), "01JD3XKQ5V8Y2W4Z6A7B8C9DEF"),
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	log.InfoContext(ctx, "explicit", "request_id", "01JD3XKQ5V8Y2W4Z6A7B8C9DEF")
	log.With("component", "x").InfoContext(ctx, "derived")
	log.Info("no context")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines = %q", lines)
	}
	for i, line := range lines[:2] {
		if n := strings.Count(line, `"request_id"`); n != 1 {
			t.Errorf("line %d carries request_id %d times: %s", i, n, line)
		}
		if !strings.Contains(line, `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`) {
			t.Errorf("line %d lacks the trace id: %s", i, line)
		}
	}
	if strings.Contains(lines[2], "request_id") || strings.Contains(lines[2], "trace_id") {
		t.Errorf("a line logged without a context carries ids: %s", lines[2])
	}
}
