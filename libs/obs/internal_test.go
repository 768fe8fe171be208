package obs_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/obs"
)

func TestReadiness(t *testing.T) {
	t.Parallel()
	var ready atomic.Bool
	in := obs.Internal{Registry: obs.NewRegistry(), Ready: func(context.Context) error {
		if !ready.Load() {
			return errors.New("database not reachable")
		}
		return nil
	}}
	srv := httptest.NewServer(in.Handler())
	t.Cleanup(srv.Close)

	if code := statusOf(t, srv.URL+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d, want 200", code)
	}
	if code := statusOf(t, srv.URL+"/readyz"); code != 503 {
		t.Errorf("/readyz before ready = %d, want 503", code)
	}
	ready.Store(true)
	if code := statusOf(t, srv.URL+"/readyz"); code != 200 {
		t.Errorf("/readyz after ready = %d, want 200", code)
	}
	if code := statusOf(t, srv.URL+"/debug/pprof/"); code != 200 {
		t.Errorf("/debug/pprof/ = %d, want 200", code)
	}
}

func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	reg := obs.NewRegistry()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(obs.HTTPMetrics(reg, "contacts-svc"))
	app.Use(obs.HTTPMetrics(reg, "contacts-svc")) // registered twice: the collectors are shared, so each request counts twice
	app.Get("/api/v1/contacts/:contact", func(c *fiber.Ctx) error { return c.SendString("ok") })
	for _, path := range []string{"/api/v1/contacts/01HZX3K5Q8V9W2Y4Z6A7B8C9DE", "/nowhere/+15551234567"} {
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	srv := httptest.NewServer(obs.Internal{Registry: reg}.Handler())
	t.Cleanup(srv.Close)
	body := fetch(t, srv.URL+"/metrics")
	for _, want := range []string{
		`http_requests_total{method="GET",route="/api/v1/contacts/:contact",service="contacts-svc",status="200"} 2`,
		`http_requests_total{method="GET",route="unmatched",service="contacts-svc",status="404"} 2`,
		`http_request_duration_seconds_count{method="GET",route="/api/v1/contacts/:contact",service="contacts-svc"} 2`,
		"go_goroutines",
		"process_cpu_seconds_total",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "5551234567") {
		t.Error("/metrics carries a raw path")
	}
}

func TestServeInternal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done, err := obs.ServeInternal(ctx, "127.0.0.1:0", obs.NewRegistry(), nil, nil)
	if err != nil {
		t.Fatalf("ServeInternal: %v", err)
	}
	if code := statusOf(t, "http://"+addr.String()+"/readyz"); code != 200 {
		t.Errorf("/readyz with nil ready = %d, want 200", code)
	}
	if !strings.Contains(fetch(t, "http://"+addr.String()+"/metrics"), "go_goroutines") {
		t.Error("/metrics lacks the Go collector")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown error: %v", err)
	}
	if _, open := <-done; open {
		t.Error("done channel not closed after the final error")
	}
	if _, err := http.Get("http://" + addr.String() + "/healthz"); err == nil {
		t.Error("listener still answers after shutdown")
	}
}

// TestInternalListenerDropsSlowBodies: a POST whose body never arrives
// (pprof's symbol lookup reads one) is cut by the read timeout instead of
// holding the connection for as long as the client likes.
func TestInternalListenerDropsSlowBodies(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, _, err := obs.ServeInternal(ctx, "127.0.0.1:0", obs.NewRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Longer than the server's bound: if it never gives up, this fails.
	_ = conn.SetDeadline(time.Now().Add(40 * time.Second))
	if _, err := io.WriteString(conn, "POST /debug/pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0x1"); err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the internal listener still holds a connection whose body never arrives")
	}
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
