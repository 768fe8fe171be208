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

	"github.com/paylane/paylane/libs/svcrun"
)

func start(t *testing.T, ctx context.Context) *svcrun.Service {
	t.Helper()
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	web.Get("/hello", func(c *fiber.Ctx) error { return c.SendString("hi") })
	s, err := svcrun.Start(ctx, svcrun.Options{Name: "test-svc", HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", Web: web})
	if err != nil {
		t.Fatal(err)
	}
	return s
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

// A cancelled parent stops the service: Wait returns nil, workers have seen
// the end of the context, and both listeners are closed.
func TestStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := start(t, ctx)
	if code, body, err := get("http://" + s.HTTPAddr() + "/hello"); err != nil || code != 200 || body != "hi" {
		t.Fatalf("GET /hello: %d %q %v", code, body, err)
	}
	if code, _, err := get("http://" + s.InternalAddr() + "/healthz"); err != nil || code != 200 {
		t.Fatalf("GET /healthz: %d %v", code, err)
	}
	var ended atomic.Bool
	s.Loop(func(ctx context.Context) { <-ctx.Done(); ended.Store(true) })
	cancel()
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait after cancel: %v", err)
	}
	if !ended.Load() {
		t.Error("Wait returned before the worker ended")
	}
	for _, addr := range []string{s.HTTPAddr(), s.InternalAddr()} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections", addr)
		}
	}
}

// A failing worker stops the service with its error, named, and the other
// workers end with the service's context.
func TestWorkerFailureStopsTheService(t *testing.T) {
	t.Parallel()
	s := start(t, context.Background())
	var other atomic.Bool
	s.Go("sleeper", func(ctx context.Context) error { <-ctx.Done(); other.Store(true); return ctx.Err() })
	s.Go("relay", func(context.Context) error { return errors.New("broker gone") })
	err := s.Wait()
	if err == nil || !strings.Contains(err.Error(), "relay: broker gone") {
		t.Fatalf("Wait: %v, want the relay's failure", err)
	}
	if !other.Load() || s.Context().Err() == nil {
		t.Error("the other worker did not end with the service")
	}
}

// BeforeDrain runs while the HTTP listener still serves.
func TestBeforeDrainRunsWhileServing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	s := start(t, ctx)
	var code int
	var getErr error
	s.BeforeDrain(func() { code, _, getErr = get("http://" + s.HTTPAddr() + "/hello") })
	cancel()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if getErr != nil || code != 200 {
		t.Fatalf("request during BeforeDrain: %d %v", code, getErr)
	}
}

// Stop ends a service whose later start step failed, returning that error.
func TestStopReturnsTheCause(t *testing.T) {
	t.Parallel()
	s := start(t, context.Background())
	cause := errors.New("registering: refused")
	if err := s.Stop(cause); !errors.Is(err, cause) {
		t.Fatalf("Stop: %v", err)
	}
	if c, err := net.DialTimeout("tcp", s.HTTPAddr(), time.Second); err == nil {
		c.Close()
		t.Error("HTTP listener still open after Stop")
	}
}

func TestStartFailsOnABusyAddress(t *testing.T) {
	t.Parallel()
	s := start(t, context.Background())
	defer s.Stop(nil)
	_, err := svcrun.Start(context.Background(), svcrun.Options{Name: "twin", HTTPAddr: s.HTTPAddr(), InternalAddr: "127.0.0.1:0", Web: fiber.New()})
	if err == nil || !strings.Contains(err.Error(), "listening on") {
		t.Fatalf("Start on a busy address: %v", err)
	}
	_, err = svcrun.Start(context.Background(), svcrun.Options{Name: "twin", HTTPAddr: "127.0.0.1:0", InternalAddr: s.InternalAddr(), Web: fiber.New()})
	if err == nil || !strings.Contains(err.Error(), "internal listener") {
		t.Fatalf("Start on a busy internal address: %v", err)
	}
}

func TestMigrateNeedsBothDSNs(t *testing.T) {
	t.Parallel()
	if err := svcrun.Migrate(context.Background(), "", "postgres://app@x/db"); err == nil {
		t.Fatal("Migrate without an owner DSN succeeded")
	}
}

// A listener bound by the caller is served as is: its address is the
// service's, whatever HTTPAddr says.
func TestServesAHandedOverListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	web.Get("/hello", func(c *fiber.Ctx) error { return c.SendString("hi") })
	ctx, cancel := context.WithCancel(context.Background())
	s, err := svcrun.Start(ctx, svcrun.Options{Name: "test-svc", HTTPAddr: "127.0.0.1:1", HTTPListener: ln, InternalAddr: "127.0.0.1:0", Web: web})
	if err != nil {
		t.Fatal(err)
	}
	if s.HTTPAddr() != ln.Addr().String() {
		t.Errorf("HTTPAddr = %s, want the handed-over %s", s.HTTPAddr(), ln.Addr())
	}
	if code, body, err := get("http://" + ln.Addr().String() + "/hello"); err != nil || code != 200 || body != "hi" {
		t.Fatalf("GET /hello on the handed-over listener: %d %q %v", code, body, err)
	}
	cancel()
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("the handed-over listener still accepts after Wait")
	}
}
