package authz_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
)

func newSigner(t *testing.T) *authz.Signer {
	t.Helper()
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	s, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func token(t *testing.T, s *authz.Signer, abilities ...string) string {
	t.Helper()
	tok, _, err := s.Sign(authz.Claims{TenantID: "01HZX3K5Q8V9W2Y4Z6A7B8C9DE", TokenID: 7, Abilities: abilities}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// newApp mounts the middleware and gates like a service does.
func newApp(t *testing.T, v *authz.Verifier) *fiber.App {
	t.Helper()
	app := httpx.NewApp(slog.New(slog.DiscardHandler))
	app.Use(authz.Middleware(v))
	app.Get("/contacts", authz.Require("api:view-any-contact"), func(c *fiber.Ctx) error {
		fromCtx := authz.FromContext(c.UserContext())
		if fromCtx == nil || fromCtx.TenantID != authz.ClaimsFrom(c).TenantID {
			return apierr.Internal()
		}
		// The verified token travels with the context, for calls to other services.
		if tok := authz.TokenFrom(c.UserContext()); tok == "" || !strings.HasSuffix(c.Get(fiber.HeaderAuthorization), " "+tok) {
			return apierr.Internal()
		}
		return c.SendString(authz.ClaimsFrom(c).TenantID)
	})
	app.Post("/contacts", func(c *fiber.Ctx) error {
		if err := authz.Check(c, "api:create-contact"); err != nil {
			return err
		}
		return c.SendStatus(http.StatusCreated)
	})
	return app
}

func TestMiddlewareAndGates(t *testing.T) {
	t.Parallel()
	s := newSigner(t)
	v, err := authz.NewStaticVerifier(s.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		method     string
		auth       string
		wantStatus int
		wantCode   string
	}{
		{"no header", "GET", "", 401, apierr.CodeUnauthenticated},
		{"basic scheme", "GET", "Basic " + token(t, s, "api:view-any-contact"), 401, apierr.CodeUnauthenticated},
		{"empty bearer", "GET", "Bearer ", 401, apierr.CodeUnauthenticated},
		{"garbage token", "GET", "Bearer abc.def.ghi", 401, apierr.CodeUnauthenticated},
		{"other deployment", "GET", "Bearer " + token(t, newSigner(t), "api:view-any-contact"), 401, apierr.CodeUnauthenticated},
		{"lacks ability", "GET", "Bearer " + token(t, s, "api:view-contact"), 403, apierr.CodeForbidden},
		{"holds ability", "GET", "Bearer " + token(t, s, "api:view-any-contact"), 200, ""},
		{"lowercase scheme", "GET", "bearer " + token(t, s, "api:view-any-contact"), 200, ""},
		{"check lacks ability", "POST", "Bearer " + token(t, s, "api:view-any-contact"), 403, apierr.CodeForbidden},
		{"check holds ability", "POST", "Bearer " + token(t, s, "api:create-contact"), 201, ""},
	}
	app := newApp(t, v)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tt.method, "/contacts", nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			status, code, body := send(t, app, req)
			if status != tt.wantStatus || code != tt.wantCode {
				t.Errorf("got %d %q, want %d %q (body %s)", status, code, tt.wantStatus, tt.wantCode, body)
			}
		})
	}
}

func TestMiddlewareKeysUnavailable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	app := newApp(t, authz.NewVerifier(srv.URL, srv.Client()))
	req := httptest.NewRequest("GET", "/contacts", nil)
	req.Header.Set("Authorization", "Bearer "+token(t, newSigner(t), "api:view-any-contact"))
	status, code, body := send(t, app, req)
	if status != 503 || code != apierr.CodeServiceUnavailable {
		t.Errorf("got %d %q, want 503 service_unavailable (body %s)", status, code, body)
	}
}

func TestRequireWithoutMiddleware(t *testing.T) {
	t.Parallel()
	app := httpx.NewApp(slog.New(slog.DiscardHandler))
	app.Get("/", authz.Require("api:view-contact"), func(c *fiber.Ctx) error { return c.SendString("ok") })
	status, code, _ := send(t, app, httptest.NewRequest("GET", "/", nil))
	if status != 401 || code != apierr.CodeUnauthenticated {
		t.Errorf("got %d %q, want 401 unauthenticated", status, code)
	}
}

func send(t *testing.T, app *fiber.App, req *http.Request) (status int, code string, body []byte) {
	t.Helper()
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		var env apierr.Envelope
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatalf("error body %q is not an envelope: %v", body, err)
		}
		code = env.Error.Code
	}
	return resp.StatusCode, code, body
}
