package idempotency_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

func things() pgdb.MigrationSet {
	return pgdb.MigrationSet{Name: "things", FS: os.DirFS("testdata/migrations")}
}

// env is a Fiber app with one guarded write route, POST /things, on a fresh
// database, and a token per tenant.
type env struct {
	pool   *pgxpool.Pool
	app    *fiber.App
	tokens map[string]string

	mu   sync.Mutex
	runs []bool // per handler run: whether it ran one-shot
}

// thingBody is the request of POST /things: fail makes the handler insert
// the thing and then fail with that status; refuse makes a one-shot run
// queue a statement that fails, as a store does whose assumption does not
// hold (the run again then inserts as usual).
type thingBody struct {
	Name   string `json:"name"`
	Fail   int    `json:"fail"`
	Refuse bool   `json:"refuse"`
	Taken  bool   `json:"taken"`
}

// errNameTaken is a domain error as services declare them: a sentinel that
// carries its answer, returned wrapped and unmapped by the handler.
var errNameTaken = apierr.NewSentinel("things: name taken", apierr.Field("name", "The name has already been taken."))

func newEnv(t *testing.T) *env { return newEnvWith(t) }

// bothModes runs test against routes guarded by Wrap as is and with
// Speculate (one shot).
func bothModes(t *testing.T, test func(t *testing.T, newEnv func(*testing.T) *env)) {
	modes := []struct {
		name string
		opts []idempotency.Option
	}{
		{"run", nil},
		{"one-shot", []idempotency.Option{idempotency.Speculate()}},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			test(t, func(t *testing.T) *env { return newEnvWith(t, mode.opts...) })
		})
	}
}

// eachMode runs test in both modes, each on a fresh env.
func eachMode(t *testing.T, test func(t *testing.T, e *env)) {
	t.Helper()
	bothModes(t, func(t *testing.T, newEnv func(*testing.T) *env) { test(t, newEnv(t)) })
}

func newEnvWith(t *testing.T, opts ...idempotency.Option) *env {
	t.Helper()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "idempotency", idempotency.Migrations(), things()))
	signer := testkit.NewSigner(t)
	verifier, err := authz.NewStaticVerifier(signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{pool: pool, tokens: map[string]string{}}
	for _, tenant := range []string{tenantA, tenantB} {
		tok, _, err := signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[tenant] = tok
	}
	e.app = httpx.NewApp(slog.New(slog.DiscardHandler))
	e.app.Use(authz.Middleware(verifier))
	e.app.Post("/things", idempotency.Wrap(pool, e.createThing, opts...))
	e.app.Post("/other-things", idempotency.Wrap(pool, e.createThing, opts...))
	e.app.Put("/things", idempotency.Wrap(pool, e.createThing, opts...))
	return e
}

// oneShotRuns returns, per handler run so far, whether it ran one-shot.
func (e *env) oneShotRuns() []bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.runs)
}

// createThing writes in the request's write transaction through InTx, as a
// service's store does.
func (e *env) createThing(c *fiber.Ctx, wtx idempotency.Tx) error {
	var in thingBody
	if err := httpx.Decode(c, &in); err != nil {
		return err
	}
	ctx := c.UserContext()
	oneShot := wtx.OneShot()
	e.mu.Lock()
	e.runs = append(e.runs, oneShot)
	e.mu.Unlock()
	tenant := authz.ClaimsFrom(c).TenantID
	id := ids.New()
	insert := func(tx pgx.Tx) error {
		const sql = "INSERT INTO things (id, tenant_id, name) VALUES ($1, $2, $3)"
		if oneShot { // nothing to wait for: the insert travels with COMMIT
			if in.Refuse {
				return tenancy.Defer(ctx, tx, "SELECT 1 / (SELECT count(*) FROM things WHERE false)")
			}
			return tenancy.Defer(ctx, tx, sql, id, tenant, in.Name)
		}
		_, err := tx.Exec(ctx, sql, id, tenant, in.Name)
		return err
	}
	if err := idempotency.InTx(ctx, wtx, e.pool, tenancy.Do, tenant, insert); err != nil {
		return err
	}
	if in.Taken {
		return fmt.Errorf("creating thing: %w", errNameTaken)
	}
	if in.Fail != 0 {
		return apierr.New(in.Fail, "failed_on_purpose", "The handler failed on purpose.")
	}
	return httpx.Data(c, http.StatusCreated, map[string]string{"id": id, "name": in.Name})
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) code() string {
	return testkit.Response{Body: r.body}.Code()
}

func (e *env) post(t *testing.T, tenant, key, body string) result {
	t.Helper()
	return e.send(t, http.MethodPost, "/things", tenant, key, body)
}

func (e *env) send(t *testing.T, method, path, tenant, key, body string) result {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.tokens[tenant])
	if key != "" {
		req.Header.Set(idempotency.HeaderKey, key)
	}
	resp, err := e.app.Test(req, -1)
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

// count returns the number of things of tenant.
func (e *env) count(t *testing.T, tenant string) int {
	t.Helper()
	var n int
	err := tenancy.Read(context.Background(), e.pool, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), "SELECT count(*) FROM things").Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// keys returns the number of stored keys of tenant.
func (e *env) keys(t *testing.T, tenant string) int {
	t.Helper()
	var n int
	err := tenancy.Read(context.Background(), e.pool, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), "SELECT count(*) FROM idempotency_keys").Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// age moves every key of tenant back by d.
func (e *env) age(t *testing.T, tenant string, d time.Duration) {
	t.Helper()
	err := tenancy.Do(context.Background(), e.pool, tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), "UPDATE idempotency_keys SET created_at = created_at - $1::interval", d)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
