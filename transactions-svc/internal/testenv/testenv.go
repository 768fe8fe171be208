// Package testenv gives transactions-svc's tests the service on real
// infrastructure: a fresh migrated database (libs/testkit), contacts-svc's
// fake as the peer (contacts-svc/client/clienttest: the routes the client
// calls, with contacts-svc's rules), internal tokens signed with a test key
// whose JWKS is served over HTTP as identity-svc serves it, and a settable
// clock. Tests that need the real contacts-svc beside transactions-svc
// live in deploy/devstack's end-to-end suite.
// The HTTP API and the hosted pages are built with the service's own
// packages, so tests call them in-process (Do) or over a listener (Serve).
package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/pages"
	"github.com/paylane/paylane/transactions-svc/internal/peers"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/scheduler"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

// Start is the clock's first reading.
func Start() time.Time { return time.Date(2026, 11, 22, 1, 21, 17, 0, time.UTC) }

// LinkKey is the link key of the service under test.
func LinkKey() []byte { return []byte("test-link-key-0123456789abcdef-0123456789") }

// PublicBaseURL is the base URL of links under test.
const PublicBaseURL = "https://pay.paylane.test"

// Env is transactions-svc under test.
type Env struct {
	App       *app.App
	Store     *store.Store
	Pool      *pgxpool.Pool
	Scheduler *scheduler.Scheduler
	Clock     *testkit.Clock
	Links     *links.Signer
	Web       *fiber.App
	Signer    *authz.Signer
	// Contacts is the contacts-svc fake the service calls; ContactsURL is
	// its URL (or the one UseContacts gave).
	Contacts    *clienttest.Contacts
	ContactsURL string
	// IdentityURL serves the JWKS of Signer.
	IdentityURL string
	DBAppDSN    string
	// Metrics holds the series the service counts (rail_operations_total).
	Metrics *prometheus.Registry
}

// New builds the service for one test.
func New(t testing.TB) *Env {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "transactions", migrations.Sets()...)
	pool := pg.Pool(t, dsn)
	signer := testkit.NewSigner(t)
	fake := clienttest.New(t)
	e := &Env{Pool: pool, Store: store.New(pool), Clock: testkit.NewClock(Start()), Signer: signer,
		IdentityURL: testkit.IdentityJWKS(t, signer), Contacts: fake, ContactsURL: fake.URL, DBAppDSN: dsn}
	var err error
	e.Links, err = links.NewSigner(LinkKey(), PublicBaseURL)
	if err != nil {
		t.Fatal(err)
	}
	e.Metrics = prometheus.NewRegistry()
	rails, err := railmetrics.New(e.Metrics, "sandbox", "stripe")
	if err != nil {
		t.Fatal(err)
	}
	e.App = app.New(e.Store, peers.NewContacts(e.ContactsURL, nil, 5*time.Second), e.Links, e.Clock.Now).WithRailMetrics(rails)
	e.Scheduler = scheduler.New(e.Store, e.App, time.Second, nil)
	verifier, err := authz.NewStaticVerifier(signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	e.Web = httpx.NewApp(nil, fiber.Config{BodyLimit: httpapi.MaxBody})
	pages.Register(e.Web, pages.Deps{App: e.App, Signer: e.Links})
	httpapi.Register(e.Web, httpapi.Deps{App: e.App, Verifier: verifier, Pool: pool})
	return e
}

// Token mints an internal token of tenant with the abilities (every
// ability when none is given), default currency USD.
func (e *Env) Token(t testing.TB, tenant string, abilities ...string) string {
	t.Helper()
	if len(abilities) == 0 {
		abilities = authz.All()
	}
	tok, _, err := e.Signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: abilities, Currency: "USD", Region: "US"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TokenWithLimits mints an internal token of tenant with every ability and
// the tenant limits l (the AI gateway's guardrails travel there).
func (e *Env) TokenWithLimits(t testing.TB, tenant string, l authz.Limits) string {
	t.Helper()
	tok, _, err := e.Signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: authz.All(), Limits: l,
		Currency: "USD", Region: "US"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Response is an answer of the service.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Code returns error.code of an error answer.
func (r Response) Code(t testing.TB) string {
	t.Helper()
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Do sends a request in-process with the token (none when empty) and
// optional headers as "Name: value" strings.
func (e *Env) Do(t testing.TB, method, path, token, body string, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := e.Web.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Serve runs the service's HTTP app on a local listener until the test ends
// and returns its base URL.
func (e *Env) Serve(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.Web.Listener(ln) }()
	t.Cleanup(func() { _ = e.Web.ShutdownWithTimeout(5 * time.Second) })
	return "http://" + ln.Addr().String()
}

// RunDue runs the scheduler once at the clock's time.
func (e *Env) RunDue(t testing.TB) int {
	t.Helper()
	n, err := e.Scheduler.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Events returns the events of tenant written to the outbox so far, in
// order.
func (e *Env) Events(t testing.TB, tenant string) []events.Envelope {
	t.Helper()
	rows, err := e.Pool.Query(context.Background(), "SELECT payload FROM outbox WHERE tenant_id = $1 ORDER BY id", tenant)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []events.Envelope
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var env events.Envelope
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&env); err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// Types lists the types of events.
func Types(list []events.Envelope) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.Type
	}
	return out
}

// Notification is a notification.requested event of the outbox with the
// number and text transactions-svc keeps of it (read over the internal
// route optin-svc calls).
type Notification struct {
	Event    events.NotificationRequested
	To, Body string
}

// Notifications returns the tenant's notification.requested events so far,
// in order, each with its number and text.
func (e *Env) Notifications(t testing.TB, tenant string) []Notification {
	t.Helper()
	token := e.Token(t, tenant, "api:view-receivable", "api:view-payable")
	var out []Notification
	for _, env := range e.Events(t, tenant) {
		if env.Type != events.TypeNotificationRequested {
			continue
		}
		var n Notification
		if err := env.Decode(&n.Event); err != nil {
			t.Fatal(err)
		}
		r := e.Do(t, http.MethodGet, "/internal/v1/notifications/"+n.Event.NotificationID, token, "")
		if r.Status != http.StatusOK {
			t.Fatalf("GET notification %s = %d %s", n.Event.NotificationID, r.Status, r.Body)
		}
		var body struct {
			Data struct{ To, Body string }
		}
		r.JSON(t, &body)
		n.To, n.Body = body.Data.To, body.Data.Body
		out = append(out, n)
	}
	return out
}
