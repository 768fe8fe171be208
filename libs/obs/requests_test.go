package obs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerParent = "00-" + callerTrace + "-00f067aa0ba902b7-01"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records returns the JSON lines logged so far.
func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// newApp serves one route behind the request id middleware and m, as
// httpx.NewApp and a service wire them; the handler records the trace id it
// ran under and the tenant it acts for.
func newApp(t *testing.T, log *slog.Logger, m func(*slog.Logger) fiber.Handler) (*fiber.App, *string) {
	t.Helper()
	var seen string
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return c.Status(ae.Status).SendString(ae.Code)
		}
		return c.Status(http.StatusInternalServerError).SendString("server_error")
	}})
	app.Use(func(c *fiber.Ctx) error {
		c.SetUserContext(reqid.With(c.UserContext(), "01JD3XKQ5V8Y2W4Z6A7B8C9DEF"))
		return c.Next()
	})
	app.Use(m(log))
	app.Get("/api/v1/contacts/:contact", func(c *fiber.Ctx) error {
		obs.SetTenant(c, "01JD3XTENANT0000000000000A")
		seen = obs.TraceID(c.UserContext())
		log.InfoContext(c.UserContext(), "looking up")
		if c.Params("contact") == "missing" {
			return apierr.New(http.StatusNotFound, apierr.CodeResourceNotFound, "no such contact")
		}
		return c.SendString("ok")
	})
	return app, &seen
}

func TestRequestsContinuesTheCallersTraceAndLogsOneLine(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	log := obs.NewLogger("contacts-svc", &buf, slog.LevelInfo)
	var tr *obs.Tracing // ids only, as in a test without OTEL_* variables
	app, seen := newApp(t, log, tr.Requests)

	req := httptest.NewRequest(http.MethodGet, "/api/v1/contacts/missing?phone=%2B14155550123", nil)
	req.Header.Set("traceparent", callerParent)
	req.Header.Set("Authorization", "Bearer pl_1|secretsecret")
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status = %d, want 404", resp.StatusCode)
	}
	if *seen != callerTrace {
		t.Errorf("the handler ran under trace %q, want the caller's %q", *seen, callerTrace)
	}
	recs := buf.records(t)
	var access []map[string]any
	for _, r := range recs {
		if r["trace_id"] != callerTrace || r["request_id"] != "01JD3XKQ5V8Y2W4Z6A7B8C9DEF" {
			t.Errorf("a line without the request's ids: %v", r)
		}
		if r["msg"] == "request" {
			access = append(access, r)
		}
	}
	if len(access) != 1 {
		t.Fatalf("access lines = %d, want 1: %v", len(access), recs)
	}
	got := access[0]
	delete(got, "time")
	delete(got, "duration_ms")
	want := map[string]any{
		"level": "INFO", "msg": "request", "service": "contacts-svc", "method": "GET",
		"route": "/api/v1/contacts/:contact", "status": float64(404), "tenant": "01JD3XTENANT0000000000000A",
		"request_id": "01JD3XKQ5V8Y2W4Z6A7B8C9DEF", "trace_id": callerTrace,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("access line (-want +got):\n%s", diff)
	}
	for _, leak := range []string{"4155550123", "secretsecret", "phone="} {
		if strings.Contains(buf.b.String(), leak) {
			t.Errorf("logs carry %q", leak)
		}
	}
}

func TestEdgeRequestsStartANewTrace(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	var tr *obs.Tracing
	app, seen := newApp(t, obs.NewLogger("gateway", &buf, slog.LevelInfo), tr.EdgeRequests)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/contacts/01JD3XKQ5V8Y2W4Z6A7B8C9DEF", nil)
	req.Header.Set("traceparent", callerParent)
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if *seen == "" || *seen == callerTrace {
		t.Errorf("edge trace = %q: want a new trace, not the client's", *seen)
	}
	recs := buf.records(t)
	if n := len(recs); n != 2 || recs[1]["status"] != float64(200) || recs[1]["trace_id"] != *seen {
		t.Errorf("want the handler's line and one access line with status 200 and the edge's trace: %v", recs)
	}
}

func TestInjectAndTraceParentRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := obs.WithTraceParent(context.Background(), callerParent)
	if got := obs.TraceID(ctx); got != callerTrace {
		t.Fatalf("TraceID = %q, want %q", got, callerTrace)
	}
	if got := obs.TraceParent(ctx); got != callerParent {
		t.Errorf("TraceParent = %q, want %q", got, callerParent)
	}
	h := http.Header{"Traceparent": {"00-11111111111111111111111111111111-2222222222222222-01"}, "Tracestate": {"x=y"}}
	obs.Inject(ctx, h)
	if diff := cmp.Diff(http.Header{"Traceparent": {callerParent}}, h); diff != "" {
		t.Errorf("injected header (-want +got):\n%s", diff)
	}
	if got := obs.TraceParent(context.Background()); got != "" {
		t.Errorf("TraceParent without a trace = %q, want empty", got)
	}
	if got := obs.TraceIDOf("garbage"); got != "" {
		t.Errorf("TraceIDOf(garbage) = %q, want empty", got)
	}
	empty := http.Header{"Traceparent": {"00-11111111111111111111111111111111-2222222222222222-01"}}
	obs.Inject(context.Background(), empty)
	if len(empty) != 0 {
		t.Errorf("Inject without a trace left %v", empty)
	}
}
