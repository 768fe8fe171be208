package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/httpapi"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	adminToken    = "admin-secret-for-tests"
	serviceSecret = "service-secret-for-tests"
)

// env is the API on a fresh database.
type env struct {
	web    *fiber.App
	signer *authz.Signer
	db     testenv.DB
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := testenv.NewDB(t)
	signer, _ := testenv.Signer(t)
	web := httpx.NewApp(nil)
	httpapi.Register(web, app.New(store.New(db.Pool), signer, time.Minute), signer.JWKS(), adminToken, serviceSecret)
	return &env{web: web, signer: signer, db: db}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// errorCode returns error.code of an envelope, or "".
func (r response) errorCode() string {
	return testkit.Response{Body: r.body}.Code()
}

// errorDetails returns error.details of a validation envelope.
func (r response) errorDetails(t *testing.T) map[string][]string {
	t.Helper()
	var env struct {
		Error struct {
			Details map[string][]string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return env.Error.Details
}

// data decodes {"data": ...} into v.
func (r response) data(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, &struct {
		Data any `json:"data"`
	}{Data: v}); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// call sends a request with the admin token.
func (e *env) call(t *testing.T, method, path, body string) response {
	t.Helper()
	return e.callWith(t, method, path, body, "Bearer "+adminToken)
}

func (e *env) callWith(t *testing.T, method, path, body, authorization string) response {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	return e.send(t, req)
}

// callWithHeaders sends a request without a body and with the headers.
func (e *env) callWithHeaders(t *testing.T, method, path string, headers map[string]string) response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return e.send(t, req)
}

func (e *env) send(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := e.web.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// expect fails the test unless the answer has the status and error code
// (code "" for success answers).
func expect(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.status != status || r.errorCode() != code {
		t.Fatalf("answer %d %q, want %d %q; body %s", r.status, r.errorCode(), status, code, r.body)
	}
}

// createTenant creates a tenant and returns its id.
func (e *env) createTenant(t *testing.T, body string) string {
	t.Helper()
	r := e.call(t, http.MethodPost, "/admin/v1/tenants", body)
	expect(t, r, http.StatusCreated, "")
	var out struct {
		ID string `json:"id"`
	}
	r.data(t, &out)
	return out.ID
}

// createToken mints a token and returns its id and plaintext.
func (e *env) createToken(t *testing.T, tenantID, body string) (int64, string) {
	t.Helper()
	r := e.call(t, http.MethodPost, "/admin/v1/tenants/"+tenantID+"/tokens", body)
	expect(t, r, http.StatusCreated, "")
	var out struct {
		ID    int64  `json:"id"`
		Token string `json:"token"`
	}
	r.data(t, &out)
	return out.ID, out.Token
}
