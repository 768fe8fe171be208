package httpx_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// serve runs app on a real listener and returns its address.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// rawExchange writes request as is and reads the answer.
func rawExchange(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestUnknownMethodsGetTheEnvelope(t *testing.T) {
	t.Parallel()
	app := newApp(t, nil)
	app.Get("/things/:id", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Delete("/things/:id", func(c *fiber.Ctx) error { return c.SendString("ok") })
	addr := serve(t, app)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"PROPFIND", "/things/1", 405, apierr.CodeMethodNotAllowed, "DELETE, GET, HEAD"},
		{"X-ANY_TOKEN!", "/things/1", 405, apierr.CodeMethodNotAllowed, "DELETE, GET, HEAD"},
		{"PROPFIND", "/nowhere", 404, apierr.CodeRouteNotFound, ""},
	}
	for _, tt := range tests {
		resp, body := rawExchange(t, addr, tt.method+" "+tt.path+" HTTP/1.1\r\nHost: svc\r\n\r\n")
		if resp.StatusCode != tt.status {
			t.Fatalf("%s %s: status %d (%s), want %d", tt.method, tt.path, resp.StatusCode, body, tt.status)
		}
		env := decodeEnvelope(t, body)
		if env.Error.Code != tt.code {
			t.Errorf("%s %s: code %q, want %q", tt.method, tt.path, env.Error.Code, tt.code)
		}
		if rid := resp.Header.Get("X-Request-Id"); rid == "" || rid != env.Error.RequestID {
			t.Errorf("%s %s: X-Request-Id %q, error.request_id %q", tt.method, tt.path, rid, env.Error.RequestID)
		}
		if got := resp.Header.Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}

func TestSlowBodyIsRequestTimeout(t *testing.T) {
	t.Parallel()
	app := newApp(t, nil, fiber.Config{ReadTimeout: time.Second})
	app.Post("/things", func(c *fiber.Ctx) error { return c.SendString("ok") })
	addr := serve(t, app)
	resp, body := rawExchange(t, addr, "POST /things HTTP/1.1\r\nHost: svc\r\nContent-Length: 50\r\n\r\n{")
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d (%s), want 408", resp.StatusCode, body)
	}
	if env := decodeEnvelope(t, body); env.Error.Code != apierr.CodeBadRequest {
		t.Errorf("code %q, want bad_request", env.Error.Code)
	}
}

func TestNewAppHasReadAndIdleTimeouts(t *testing.T) {
	t.Parallel()
	cfg := newApp(t, nil).Config()
	if cfg.ReadTimeout <= 0 || cfg.ReadTimeout > 30*time.Second {
		t.Errorf("ReadTimeout %v: want a bound of at most 30s", cfg.ReadTimeout)
	}
	// The gateway keeps idle upstream connections for 30 s: a service that
	// closed them sooner would race its reuse.
	if cfg.IdleTimeout < time.Minute {
		t.Errorf("IdleTimeout %v: want at least a minute", cfg.IdleTimeout)
	}
}
