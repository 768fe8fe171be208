package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/httpapi"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

// env is the Fiber app of contacts-svc on a fresh database, with a signer
// that mints internal tokens as identity-svc would.
type env struct {
	app    *fiber.App
	pool   *pgxpool.Pool
	signer *authz.Signer
	phones atomic.Int64
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, func(a *app.App) *app.App { return a })
}

// newEnvWith is newEnv with the use cases adjusted by configure.
func newEnvWith(t testing.TB, configure func(*app.App) *app.App) *env {
	t.Helper()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "contacts_http", migrations.Sets()...))
	signer := testkit.NewSigner(t)
	verifier, err := authz.NewStaticVerifier(signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	web := httpx.NewApp(slog.New(slog.DiscardHandler))
	httpapi.Register(web, httpapi.Deps{
		App: configure(app.New(store.New(pool, nil), nil)), Verifier: verifier, Pool: pool, Region: "US",
	})
	return &env{app: web, pool: pool, signer: signer}
}

// token mints an internal token of tenant with the abilities.
func (e *env) token(t testing.TB, tenant string, abilities ...string) string {
	t.Helper()
	tok, _, err := e.signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: abilities}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// all is every ability the public routes gate on.
func all() []string {
	return []string{
		httpapi.AbilityViewAnyContact, httpapi.AbilityViewContact, httpapi.AbilityCreateContact,
		httpapi.AbilityUpdateContact, httpapi.AbilityDeleteContact, httpapi.AbilityRestoreContact,
		httpapi.AbilityViewAnyDefinition, httpapi.AbilityViewDefinition, httpapi.AbilityCreateDefinition,
		httpapi.AbilityUpdateDefinition, httpapi.AbilityDeleteDefinition,
	}
}

// allBut is every ability except the given one.
func allBut(ability string) []string {
	var out []string
	for _, a := range all() {
		if a != ability {
			out = append(out, a)
		}
	}
	return out
}

// phone returns a valid US number no other call of this env returned.
func (e *env) phone() string {
	return fmt.Sprintf("+1415555%04d", 1000+e.phones.Add(1))
}

// request is one call to the app.
type request struct {
	method, path, body, token string
	header                    map[string]string
}

// result is a decoded response.
type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) envelope() (code, message string, details map[string]any) {
	var env struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.body, &env)
	return env.Error.Code, env.Error.Message, env.Error.Details
}

func (r result) code() string { c, _, _ := r.envelope(); return c }

// data decodes {"data": ...} into v.
func (r result) data(t testing.TB, v any) {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || env.Data == nil {
		t.Fatalf("body %s is not {data}: %v", r.body, err)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		t.Fatalf("data %s: %v", env.Data, err)
	}
}

func (e *env) do(t testing.TB, req request) result {
	t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	r := httptest.NewRequestWithContext(context.Background(), req.method, req.path, body)
	r.Header.Set("Content-Type", "application/json")
	if req.token != "" {
		r.Header.Set("Authorization", "Bearer "+req.token)
	}
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	// Errorf, not Fatalf: do also runs on goroutines of concurrency tests.
	resp, err := e.app.Test(r, -1)
	if err != nil {
		t.Errorf("app.Test: %v", err)
		return result{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("reading body: %v", err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

// contactJSON is a contact as the API renders it.
type contactJSON struct {
	ID           string            `json:"id"`
	ExternalID   *string           `json:"external_id"`
	FirstName    *string           `json:"first_name"`
	LastName     *string           `json:"last_name"`
	Phone        string            `json:"phone"`
	PhoneID      string            `json:"phone_id"`
	Email        *string           `json:"email"`
	CustomFields map[string]any    `json:"custom_fields"`
	CreatedAt    string            `json:"created_at"`
	UpdatedAt    string            `json:"updated_at"`
	DeletedAt    *string           `json:"deleted_at"`
	OptInStatus  string            `json:"opt_in_status"`
	Consents     []json.RawMessage `json:"consents"`
}

// create makes a contact in tenant through the API and returns it.
func (e *env) create(t testing.TB, tenant, body string) contactJSON {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/v1/contacts", body: body, token: e.token(t, tenant, all()...)})
	if r.status != http.StatusCreated {
		t.Fatalf("creating contact %s: %d %s", body, r.status, r.body)
	}
	var c contactJSON
	r.data(t, &c)
	return c
}

// newContact creates a contact with a fresh phone in tenant A.
func (e *env) newContact(t testing.TB) contactJSON {
	t.Helper()
	return e.create(t, tenantA, `{"first_name":"Ada","last_name":"Lovelace","phone":"`+e.phone()+`"}`)
}

// trash soft-deletes a contact of tenant A.
func (e *env) trash(t testing.TB, id string) {
	t.Helper()
	r := e.do(t, request{method: "DELETE", path: "/api/v1/contacts/" + id, token: e.token(t, tenantA, all()...)})
	if r.status != http.StatusNoContent {
		t.Fatalf("deleting %s: %d %s", id, r.status, r.body)
	}
}

// routeCase is one request made with a token of tenant A holding every
// ability, and the status, error.code and error.details key it must answer.
type routeCase struct {
	name       string
	method     string
	path       string // {id} is replaced by setup's id
	body       string
	setup      func(*testing.T) string
	wantStatus int
	wantCode   string
	wantDetail string // a key of error.details
}

// runRouteCases runs each case as a parallel subtest.
func runRouteCases(t *testing.T, e *env, tests []routeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.path
			if tt.setup != nil {
				path = strings.ReplaceAll(path, "{id}", tt.setup(t))
			}
			r := e.do(t, request{method: tt.method, path: path, body: tt.body, token: e.token(t, tenantA, all()...)})
			checkResult(t, r, tt.wantStatus, tt.wantCode, tt.wantDetail)
		})
	}
}
