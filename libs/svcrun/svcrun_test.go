package svcrun_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
)

// base listens on free loopback ports.
func base() envconf.Base {
	return envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0"}
}

func hello() *fiber.App {
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	web.Get("/hello", func(c *fiber.Ctx) error { return c.SendString("hi") })
	return web
}

// spec is a service without a database serving hello, with workers.
func spec(workers ...svcrun.Worker) svcrun.Spec {
	return svcrun.Spec{Name: "test-svc", Base: base(), Build: func(context.Context, *svcrun.Env) (svcrun.Parts, error) {
		return svcrun.Parts{Web: hello(), Workers: workers}, nil
	}}
}

// run runs s in the background and returns its bound addresses and its
// result.
func run(t *testing.T, ctx context.Context, s svcrun.Spec, opts ...svcrun.Option) (svcrun.Addrs, <-chan error) {
	t.Helper()
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	go func() {
		done <- svcrun.Run(ctx, s, append(opts, svcrun.WithReady(func(a svcrun.Addrs) { ready <- a }))...)
	}()
	select {
	case a := <-ready:
		return a, done
	case err := <-done:
		t.Fatalf("Run returned before ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run never became ready")
	}
	return svcrun.Addrs{}, nil
}

func get(url string) (int, string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func wantClosed(t *testing.T, addrs ...string) {
	t.Helper()
	for _, addr := range addrs {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections", addr)
		}
	}
}

// A cancelled parent stops the service: Run returns nil, workers have seen
// the end of the context, and both listeners are closed.
func TestStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var ended atomic.Bool
	a, done := run(t, ctx, spec(svcrun.Loop("waiter", func(ctx context.Context) { <-ctx.Done(); ended.Store(true) })))
	if code, body, err := get("http://" + a.HTTP + "/hello"); err != nil || code != 200 || body != "hi" {
		t.Fatalf("GET /hello: %d %q %v", code, body, err)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _, err := get("http://" + a.Internal + path); err != nil || code != 200 {
			t.Fatalf("GET %s: %d %v", path, code, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	if !ended.Load() {
		t.Error("Run returned before the worker ended")
	}
	wantClosed(t, a.HTTP, a.Internal)
}

// A failing worker stops the service with its error, named, and the other
// workers end with the service's context.
func TestWorkerFailureStopsTheService(t *testing.T) {
	t.Parallel()
	var other atomic.Bool
	_, done := run(t, context.Background(), spec(
		svcrun.Worker{Name: "sleeper", Run: func(ctx context.Context) error { <-ctx.Done(); other.Store(true); return ctx.Err() }},
		svcrun.Worker{Name: "relay", Run: func(context.Context) error { return errors.New("broker gone") }},
	))
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "relay: broker gone") {
		t.Fatalf("Run: %v, want the relay's failure", err)
	}
	if !other.Load() {
		t.Error("the other worker did not end with the service")
	}
}

// Further servers listen too, their addresses are reported by name, and
// Parts.Ready answers /readyz.
func TestServesFurtherServersAndReadiness(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := spec()
	s.Build = func(context.Context, *svcrun.Env) (svcrun.Parts, error) {
		return svcrun.Parts{Web: hello(), Servers: []svcrun.Server{{Name: "admin", Addr: "127.0.0.1:0", App: hello()}},
			Ready: func(context.Context) error { return errors.New("warming up") }}, nil
	}
	a, done := run(t, ctx, s)
	if code, body, err := get("http://" + a.Servers["admin"] + "/hello"); err != nil || code != 200 || body != "hi" {
		t.Fatalf("GET /hello on the admin listener %q: %d %q %v", a.Servers["admin"], code, body, err)
	}
	if code, _, err := get("http://" + a.Internal + "/readyz"); err != nil || code != http.StatusServiceUnavailable {
		t.Fatalf("GET /readyz while not ready: %d %v, want 503", code, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantClosed(t, a.HTTP, a.Servers["admin"], a.Internal)
}

// A listener bound by the caller is served as is: its address is the
// service's, whatever HTTPAddr says, and it is closed when Run returns.
func TestServesAHandedOverListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := spec()
	s.Base.HTTPAddr = "127.0.0.1:1"
	ctx, cancel := context.WithCancel(context.Background())
	a, done := run(t, ctx, s, svcrun.WithListener(ln))
	if a.HTTP != ln.Addr().String() {
		t.Errorf("HTTP address = %s, want the handed-over %s", a.HTTP, ln.Addr())
	}
	if code, body, err := get("http://" + ln.Addr().String() + "/hello"); err != nil || code != 200 || body != "hi" {
		t.Fatalf("GET /hello on the handed-over listener: %d %q %v", code, body, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	wantClosed(t, ln.Addr().String())
}

// A listener handed over belongs to Run: when the service cannot start
// (its internal address is taken, its configuration is invalid, Build
// fails), Run closes it instead of leaving it bound with no one serving.
func TestClosesAHandedOverListenerWhenStartFails(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	tests := []struct {
		name   string
		change func(*svcrun.Spec)
		want   string
	}{
		{"internal address taken", func(s *svcrun.Spec) { s.Base.InternalAddr = busy.Addr().String() }, "internal listener"},
		{"further address taken", func(s *svcrun.Spec) {
			s.Build = func(context.Context, *svcrun.Env) (svcrun.Parts, error) {
				return svcrun.Parts{Web: hello(), Servers: []svcrun.Server{{Name: "admin", Addr: busy.Addr().String(), App: hello()}}}, nil
			}
		}, "listening on"},
		{"invalid configuration", func(s *svcrun.Spec) { s.Validate = func() error { return errors.New("KEY is required") } }, "invalid configuration"},
		{"build fails", func(s *svcrun.Spec) {
			s.Build = func(context.Context, *svcrun.Env) (svcrun.Parts, error) { return svcrun.Parts{}, errors.New("no key") }
		}, "no key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := spec()
			tt.change(&s)
			err = svcrun.Run(context.Background(), s, svcrun.WithListener(ln))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run: %v, want an error containing %q", err, tt.want)
			}
			wantClosed(t, ln.Addr().String())
		})
	}
}

func TestFailsOnABusyAddress(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	a, done := run(t, ctx, spec())
	defer func() { cancel(); <-done }()
	s := spec()
	s.Base.HTTPAddr = a.HTTP
	if err := svcrun.Run(context.Background(), s); err == nil || !strings.Contains(err.Error(), "listening on") {
		t.Fatalf("Run on a busy address: %v", err)
	}
}

func TestMigrateNeedsBothDSNs(t *testing.T) {
	t.Parallel()
	if err := svcrun.Migrate(context.Background(), "", "postgres://app@x/db"); err == nil {
		t.Fatal("Migrate without an owner DSN succeeded")
	}
}

// MigrateOnly returns without serving: nothing to do without migrations,
// the DSNs' error with them.
func TestMigrateOnly(t *testing.T) {
	t.Parallel()
	built := false
	s := spec()
	s.Build = func(context.Context, *svcrun.Env) (svcrun.Parts, error) { built = true; return svcrun.Parts{}, nil }
	if err := svcrun.Run(context.Background(), s, svcrun.MigrateOnly()); err != nil {
		t.Fatalf("migrate without a database: %v", err)
	}
	s.Migrations = []pgdb.MigrationSet{}
	if err := svcrun.Run(context.Background(), s, svcrun.MigrateOnly()); err == nil || !strings.Contains(err.Error(), "MIGRATE_DATABASE_URL") {
		t.Fatalf("migrate without DSNs: %v", err)
	}
	if built {
		t.Error("MigrateOnly built the service")
	}
}

type clock func() time.Time

// A seam handed as an option reaches Build by its type; absent, Seam says so.
func TestSeams(t *testing.T) {
	t.Parallel()
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var got time.Time
	var hasOther bool
	s := spec()
	s.Build = func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) {
		if c, ok := svcrun.Seam[clock](e); ok {
			got = c()
		}
		_, hasOther = svcrun.Seam[func() string](e)
		return svcrun.Parts{}, errors.New("stop here")
	}
	_ = svcrun.Run(context.Background(), s, svcrun.WithSeam(clock(func() time.Time { return fixed })))
	if !got.Equal(fixed) || hasOther {
		t.Fatalf("seam clock = %v (other seam present: %v), want %v and none", got, hasOther, fixed)
	}
}

type cfg struct{ envconf.Base }

// Command refuses unknown arguments before reading the configuration, and
// passes a reading error on, named.
func TestCommand(t *testing.T) {
	t.Parallel()
	read := 0
	fromEnv := func() (cfg, error) { read++; return cfg{}, errors.New("DB_MAX_CONNS: bad") }
	runFn := func(context.Context, cfg, ...svcrun.Option) error { return nil }
	if err := svcrun.Command(context.Background(), "x-svc", []string{"serve"}, fromEnv, runFn); err == nil || !strings.Contains(err.Error(), "usage: x-svc [migrate]") {
		t.Fatalf("unknown argument: %v", err)
	}
	if read != 0 {
		t.Error("the configuration was read for an unknown argument")
	}
	if err := svcrun.Command(context.Background(), "x-svc", []string{"migrate"}, fromEnv, runFn); err == nil || !strings.Contains(err.Error(), "reading configuration: DB_MAX_CONNS") {
		t.Fatalf("bad configuration: %v", err)
	}
}
