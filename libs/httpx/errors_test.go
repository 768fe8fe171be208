package httpx_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// Domain errors as services declare them: sentinels and a small type that
// carry their answer.
var (
	errThingGone = apierr.NewSentinel("thing: not found", apierr.NotFound())
	errPeerDown  = apierr.NewSentinel("thing: peer unavailable", apierr.Unavailable("Retry.", 4))
)

type thingInvalid struct{ field string }

func (e *thingInvalid) Error() string { return "thing: invalid " + e.field }
func (e *thingInvalid) APIError() *apierr.Error {
	return apierr.Field(e.field, "The "+e.field+" field is invalid.")
}

func TestAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"sentinel", fmt.Errorf("a: %w", errThingGone), 404, apierr.CodeResourceNotFound},
		{"error type", &thingInvalid{field: "size"}, 422, apierr.CodeValidationFailed},
		{"fiber method", fiber.ErrMethodNotAllowed, 405, apierr.CodeMethodNotAllowed},
		{"database", &pgconn.PgError{Code: "57P01"}, 503, apierr.CodeServiceUnavailable},
		{"unknown", errors.New("secret internals"), 500, apierr.CodeServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := httpx.APIError(tt.err)
			if got.Status != tt.wantStatus || got.Code != tt.wantCode {
				t.Errorf("APIError = %d %s, want %d %s", got.Status, got.Code, tt.wantStatus, tt.wantCode)
			}
			if tt.wantStatus == 500 && strings.Contains(got.Message, "secret") {
				t.Errorf("500 message leaks the error: %q", got.Message)
			}
		})
	}
}

func TestErrorHandlerMapping(t *testing.T) {
	t.Parallel()
	// A database nobody listens on: the error every query gets while
	// Postgres restarts.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, unreachable := pgconn.Connect(ctx, "postgres://app@127.0.0.1:1/db?sslmode=disable&connect_timeout=5")
	var ce *pgconn.ConnectError
	if !errors.As(unreachable, &ce) {
		t.Fatalf("connecting to a closed port: %v, want a *pgconn.ConnectError", unreachable)
	}
	tests := []struct {
		name        string
		method      string
		path        string
		body        string
		handler     fiber.Handler
		wantStatus  int
		wantCode    string
		wantHeaders map[string]string
	}{
		{name: "apierr validation", handler: func(*fiber.Ctx) error { return apierr.Field("name", "The name field is required.") },
			wantStatus: 422, wantCode: apierr.CodeValidationFailed},
		{name: "apierr wrapped", handler: func(*fiber.Ctx) error { return fmt.Errorf("loading: %w", apierr.NotFound()) },
			wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "apierr retry after and headers", handler: func(*fiber.Ctx) error {
			return &apierr.Error{Status: 429, Code: apierr.CodeRateLimited, Message: "slow down", RetryAfter: 7,
				Headers: map[string]string{"X-RateLimit-Remaining": "0"}}
		}, wantStatus: 429, wantCode: apierr.CodeRateLimited,
			wantHeaders: map[string]string{"Retry-After": "7", "X-RateLimit-Remaining": "0"}},
		{name: "apierr forbidden", handler: func(*fiber.Ctx) error { return apierr.Forbidden() },
			wantStatus: 403, wantCode: apierr.CodeForbidden},
		{name: "domain sentinel wrapped", handler: func(*fiber.Ctx) error { return fmt.Errorf("loading thing: %w", errThingGone) },
			wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "domain sentinel with retry after", handler: func(*fiber.Ctx) error { return fmt.Errorf("calling peer: %w", errPeerDown) },
			wantStatus: 503, wantCode: apierr.CodeServiceUnavailable, wantHeaders: map[string]string{"Retry-After": "4"}},
		{name: "domain error type", handler: func(*fiber.Ctx) error { return fmt.Errorf("saving: %w", &thingInvalid{field: "size"}) },
			wantStatus: 422, wantCode: apierr.CodeValidationFailed},
		{name: "unknown route", path: "/nowhere", wantStatus: 404, wantCode: apierr.CodeRouteNotFound},
		{name: "wrong method", method: http.MethodDelete, wantStatus: 405, wantCode: apierr.CodeMethodNotAllowed,
			wantHeaders: map[string]string{"Allow": "GET, HEAD, POST"}},
		{name: "fiber bad request", handler: func(*fiber.Ctx) error { return fiber.ErrBadRequest },
			wantStatus: 400, wantCode: apierr.CodeBadRequest},
		{name: "fiber too large", handler: func(*fiber.Ctx) error { return fiber.ErrRequestEntityTooLarge },
			wantStatus: 413, wantCode: apierr.CodePayloadTooLarge},
		{name: "fiber other", handler: func(*fiber.Ctx) error { return fiber.ErrTeapot },
			wantStatus: 500, wantCode: apierr.CodeServerError},
		{name: "database unreachable", handler: func(*fiber.Ctx) error { return fmt.Errorf("inserting contact: %w", unreachable) },
			wantStatus: 503, wantCode: apierr.CodeServiceUnavailable, wantHeaders: map[string]string{"Retry-After": "1"}},
		{name: "database shutting down", handler: func(*fiber.Ctx) error {
			return fmt.Errorf("inserting contact: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"})
		}, wantStatus: 503, wantCode: apierr.CodeServiceUnavailable, wantHeaders: map[string]string{"Retry-After": "1"}},
		{name: "database starting up", handler: func(*fiber.Ctx) error {
			return &pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is starting up"}
		}, wantStatus: 503, wantCode: apierr.CodeServiceUnavailable},
		{name: "database connection lost", handler: func(*fiber.Ctx) error {
			return fmt.Errorf("loading contact: %w", &pgconn.PgError{Code: "08006", Message: "connection failure"})
		}, wantStatus: 503, wantCode: apierr.CodeServiceUnavailable},
		{name: "database constraint is not availability", handler: func(*fiber.Ctx) error {
			return &pgconn.PgError{Code: "23505", Message: "duplicate key"}
		}, wantStatus: 500, wantCode: apierr.CodeServerError},
		{name: "plain error", handler: func(*fiber.Ctx) error { return errors.New("pq: secret table exploded") },
			wantStatus: 500, wantCode: apierr.CodeServerError},
		{name: "panic", handler: func(*fiber.Ctx) error { panic("boom at secret place") },
			wantStatus: 500, wantCode: apierr.CodeServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			app := newApp(t, &logs, fiber.Config{BodyLimit: 1024})
			h := tt.handler
			if h == nil {
				h = func(c *fiber.Ctx) error { return c.SendString("ok") }
			}
			app.Get("/thing", h)
			app.Post("/thing", h)
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodGet
			}
			if path == "" {
				path = "/thing"
			}
			resp, body := do(t, app, httptest.NewRequest(method, path, strings.NewReader(tt.body)))
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, tt.wantStatus, body)
			}
			env := decodeEnvelope(t, body)
			if env.Error.Code != tt.wantCode {
				t.Errorf("error.code = %q, want %q", env.Error.Code, tt.wantCode)
			}
			rid := resp.Header.Get("X-Request-Id")
			if rid == "" || env.Error.RequestID != rid {
				t.Errorf("error.request_id = %q, X-Request-Id = %q; want equal and set", env.Error.RequestID, rid)
			}
			for k, want := range tt.wantHeaders {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if tt.wantStatus == 500 {
				for _, leak := range []string{"secret", "goroutine", ".go:"} {
					if strings.Contains(string(body), leak) {
						t.Errorf("500 body leaks %q: %s", leak, body)
					}
				}
				if !strings.Contains(logs.String(), rid) {
					t.Errorf("log does not carry the request id %s: %s", rid, logs.String())
				}
			}
		})
	}
}

func TestPanicStackIsLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	app := newApp(t, &logs)
	app.Get("/", func(*fiber.Ctx) error { panic("kaboom") })
	resp, _ := get(t, app, "/")
	if resp.StatusCode != 500 {
		t.Fatalf("status = %d, want 500", resp.StatusCode)
	}
	for _, want := range []string{"kaboom", "goroutine", "stack"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q: %s", want, logs.String())
		}
	}
}

func TestRequestIDEchoOrAssign(t *testing.T) {
	t.Parallel()
	const ulid = "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"
	const uuid = "123e4567-e89b-12d3-a456-426614174000"
	tests := []struct {
		name, sent string
		echoed     bool
	}{
		{name: "ulid echoed", sent: ulid, echoed: true},
		{name: "uuid echoed", sent: uuid, echoed: true},
		{name: "garbage replaced", sent: "hello world", echoed: false},
		{name: "too long replaced", sent: strings.Repeat("a", 65), echoed: false},
		{name: "byte that is not UTF-8 replaced", sent: ulid[:25] + "\xff", echoed: false},
		{name: "ulid then a byte that is not UTF-8 replaced", sent: ulid + "\xfe", echoed: false},
		{name: "control character replaced", sent: ulid[:25] + "\x01", echoed: false},
		{name: "absent assigned", sent: "", echoed: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			var inCtx string
			app.Get("/", func(c *fiber.Ctx) error {
				inCtx = requestIDFromContext(c)
				return c.SendString("ok")
			})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.sent != "" {
				req.Header.Set("X-Request-Id", tt.sent)
			}
			resp, _ := do(t, app, req)
			got := resp.Header.Get("X-Request-Id")
			if tt.echoed && got != tt.sent {
				t.Errorf("X-Request-Id = %q, want echo %q", got, tt.sent)
			}
			if !tt.echoed && (got == "" || got == tt.sent) {
				t.Errorf("X-Request-Id = %q, want a new id", got)
			}
			if diff := cmp.Diff(got, inCtx); diff != "" {
				t.Errorf("context id differs from header (-header +ctx):\n%s", diff)
			}
		})
	}
}

// TestBodyAboveLimit goes through a real listener: Fiber rejects the body
// before any middleware runs, so the handler must still assign a request id.
func TestBodyAboveLimit(t *testing.T) {
	t.Parallel()
	app := newApp(t, nil, fiber.Config{BodyLimit: 1024})
	app.Post("/thing", func(c *fiber.Ctx) error { return c.SendString("ok") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })

	resp, err := http.Post("http://"+ln.Addr().String()+"/thing", "application/json", strings.NewReader(strings.Repeat("x", 4096)))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d, want 413 (body %s)", resp.StatusCode, body)
	}
	env := decodeEnvelope(t, body)
	if env.Error.Code != apierr.CodePayloadTooLarge {
		t.Errorf("error.code = %q, want %q", env.Error.Code, apierr.CodePayloadTooLarge)
	}
	if rid := resp.Header.Get("X-Request-Id"); rid == "" || rid != env.Error.RequestID {
		t.Errorf("request id header %q, body %q: want equal and set", rid, env.Error.RequestID)
	}
}
