package httpx_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
)

// envelope is the decoded error body.
type envelope struct {
	Error struct {
		Code      string              `json:"code"`
		Message   string              `json:"message"`
		Details   map[string][]string `json:"details"`
		RequestID string              `json:"request_id"`
	} `json:"error"`
}

// newApp returns an app from NewApp whose log goes to buf.
func newApp(t *testing.T, buf *bytes.Buffer, cfg ...fiber.Config) *fiber.App {
	t.Helper()
	w := io.Discard
	if buf != nil {
		w = buf
	}
	return httpx.NewApp(slog.New(slog.NewJSONHandler(w, nil)), cfg...)
}

// do sends a request and returns the response and its body.
func do(t *testing.T, app *fiber.App, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("app.Test: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return resp, body
}

func get(t *testing.T, app *fiber.App, target string) (*http.Response, []byte) {
	t.Helper()
	return do(t, app, httptest.NewRequest(http.MethodGet, target, nil))
}

func post(t *testing.T, app *fiber.App, target, body string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return do(t, app, req)
}

func decodeEnvelope(t *testing.T, body []byte) envelope {
	t.Helper()
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("body %q is not an error envelope: %v", body, err)
	}
	return env
}

func mustRequest(t *testing.T, method, target string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, target, nil)
}

// newDecodeApp is an app whose POST / decodes the body into a T with
// httpx.Decode and answers 200 with what it decoded.
func newDecodeApp[T any](t *testing.T) *fiber.App {
	t.Helper()
	app := newApp(t, nil)
	app.Post("/", func(c *fiber.Ctx) error {
		var dst T
		if err := httpx.Decode(c, &dst); err != nil {
			return err
		}
		return httpx.Data(c, 200, dst)
	})
	return app
}

// postDecode posts body to newDecodeApp[T] and fails the test unless the
// answer's status is wantStatus. For any status but 200 it also checks the
// answer's error.code against wantCode and returns its error.details and
// true.
func postDecode[T any](t *testing.T, body string, wantStatus int, wantCode string) (map[string][]string, bool) {
	t.Helper()
	resp, b := post(t, newDecodeApp[T](t), "/", body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, wantStatus, b)
	}
	if wantStatus == 200 {
		return nil, false
	}
	env := decodeEnvelope(t, b)
	if env.Error.Code != wantCode {
		t.Errorf("error.code = %q, want %q", env.Error.Code, wantCode)
	}
	return env.Error.Details, true
}
