package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/dashboard-svc/internal/store"
	"github.com/paylane/paylane/dashboard-svc/internal/web"
	"github.com/paylane/paylane/dashboard-svc/migrations"
	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/client/clienttest"
	"github.com/paylane/paylane/libs/testkit"
	transactions "github.com/paylane/paylane/transactions-svc/client"
	webhooks "github.com/paylane/paylane/webhook-svc/client"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenant   = "01JTENANT0000000000000000A"
	password = "correct horse battery"
)

// env is the dashboard on a fresh sessions database and a fake identity-svc.
type env struct {
	app      *web.App
	identity *clienttest.Users
	store    *store.Store
	clock    *time.Time
	txns     *fakeTransactions
	hooks    *fakeWebhooks
	contacts *fakeContacts
	batches  *fakeBatches
}

// fakeWebhooks stands in for webhook-svc: endpoints kept per internal
// token (so per user of the fake identity), a URL that is not https is
// refused with 422 as the real service does.
type fakeWebhooks struct {
	mu      sync.Mutex
	byToken map[string][]webhooks.Endpoint
	detail  webhookDetail // the endpoint page's state (webhooks_test.go)
}

func (f *fakeWebhooks) Endpoints(_ context.Context, token string) ([]webhooks.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byToken[token], nil
}

func (f *fakeWebhooks) CreateEndpoint(_ context.Context, token, key string, in webhooks.EndpointInput) (*webhooks.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.detail.writes = append(f.detail.writes, webhookWrite{"create", token, key, ""})
	if !strings.HasPrefix(in.URL, "https://") {
		return nil, &webhooks.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"url":["The url must be https."]}`)}
	}
	e := webhooks.Endpoint{ID: "E1", Name: in.Name, URL: in.URL, SubscribedEvents: in.SubscribedEvents, IsActive: true,
		SigningSecret: "whsec_c2VjcmV0"}
	f.byToken[token] = append(f.byToken[token], webhooks.Endpoint{ID: e.ID, Name: e.Name, URL: e.URL, IsActive: true})
	return &e, nil
}

// member is a user of the tenant that signs in with the test password.
type member struct{ email, name, role string }

func newEnv(t *testing.T, members ...member) *env {
	t.Helper()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "dashboard", migrations.Sets()...))
	fake := clienttest.NewUsers(t)
	now := time.Now()
	e := &env{identity: fake, store: store.New(pool), clock: &now, txns: newFakeTransactions(),
		hooks: &fakeWebhooks{byToken: map[string][]webhooks.Endpoint{}}}
	app, err := web.New(web.Options{
		Identity:     identity.NewWithSecret(fake.URL, clienttest.UsersSecret, nil),
		Transactions: e.txns,
		Webhooks:     e.hooks,
		Sessions:     e.store,
		Now:          func() time.Time { return *e.clock },
		Contacts:     newFakeContacts(e),
		Batches:      newFakeBatches(e),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.app = app
	for _, m := range members {
		fake.AddUser(tenant, m.email, m.name, m.role, password)
	}
	return e
}

// browser keeps cookies between requests, like a browser would.
type browser struct {
	e       *env
	cookies map[string]*http.Cookie
}

func (e *env) browser() *browser { return &browser{e: e, cookies: map[string]*http.Cookie{}} }

type answer struct {
	status  int
	header  http.Header
	body    string
	cookies []*http.Cookie
}

func (b *browser) do(t *testing.T, method, path string, form url.Values) answer {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := b.e.app.Fiber().Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(raw), cookies: resp.Cookies()}
}

func (b *browser) get(t *testing.T, path string) answer { return b.do(t, http.MethodGet, path, nil) }

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the first form of a page.
func csrf(t *testing.T, a answer) string {
	t.Helper()
	m := csrfPattern.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no _csrf field in the page:\n%s", a.body)
	}
	return m[1]
}

// signIn signs the browser in as email.
func (b *browser) signIn(t *testing.T, email string) {
	t.Helper()
	page := b.get(t, "/dashboard/sign-in")
	a := b.do(t, http.MethodPost, "/dashboard/sign-in", url.Values{"_csrf": {csrf(t, page)}, "email": {email}, "password": {password}})
	if a.status != http.StatusSeeOther {
		t.Fatalf("sign-in as %s: %d\n%s", email, a.status, a.body)
	}
}

// signedIn is a new browser signed in as email.
func (e *env) signedIn(t *testing.T, email string) *browser {
	t.Helper()
	b := e.browser()
	b.signIn(t, email)
	return b
}

// open gets a page that must answer 200 and stops the test otherwise.
func (b *browser) open(t *testing.T, path string) answer {
	t.Helper()
	a := b.get(t, path)
	expectStatus(t, a, http.StatusOK)
	return a
}

// wantGet reports a GET of path that does not answer status, and lets the
// test go on; what names the case.
func (b *browser) wantGet(t *testing.T, path string, status int, what string) {
	t.Helper()
	if a := b.get(t, path); a.status != status {
		t.Errorf("%s: GET %s = %d, want %d", what, path, a.status, status)
	}
}

func expectStatus(t *testing.T, a answer, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", a.status, status, a.body)
	}
}

func TestPagesRedirectToSignInWithoutASession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := e.browser()
	for _, path := range []string{"/dashboard", "/dashboard/", "/dashboard/tokens", "/dashboard/tokens/new", "/dashboard/account", "/dashboard/users"} {
		t.Run(path, func(t *testing.T) {
			a := b.get(t, path)
			if a.status != http.StatusFound || a.header.Get("Location") != "/dashboard/sign-in" {
				t.Errorf("GET %s = %d to %q, want 302 to /dashboard/sign-in", path, a.status, a.header.Get("Location"))
			}
		})
	}
	a := b.do(t, http.MethodPost, "/dashboard/tokens", url.Values{"name": {"x"}})
	if a.status != http.StatusFound {
		t.Errorf("POST /dashboard/tokens without a session = %d, want 302", a.status)
	}
	b.cookies["paylane_session"] = &http.Cookie{Name: "paylane_session", Value: "forged"}
	b.wantGet(t, "/dashboard/tokens", http.StatusFound, "a forged session cookie")
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"dev@example.com", "Dev Eloper", "developer"})
	b := e.browser()
	page := b.open(t, "/dashboard/sign-in")
	for _, want := range []string{`<label for="email">`, `<label for="password">`, `autocomplete="current-password"`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("sign-in page lacks %s", want)
		}
	}
	token := csrf(t, page)

	tests := []struct {
		name   string
		form   url.Values
		status int
		text   string
	}{
		{"no csrf", url.Values{"email": {"dev@example.com"}, "password": {password}}, 419, "Page expired"},
		{"wrong csrf", url.Values{"_csrf": {"x" + token}, "email": {"dev@example.com"}, "password": {password}}, 419, "Page expired"},
		{"wrong password", url.Values{"_csrf": {token}, "email": {"dev@example.com"}, "password": {"wrong password!"}}, 401, "do not match"},
		{"no password", url.Values{"_csrf": {token}, "email": {"dev@example.com"}}, 422, "Enter your email and password"},
	}
	for _, tc := range tests {
		a := b.do(t, http.MethodPost, "/dashboard/sign-in", tc.form)
		if a.status != tc.status || !strings.Contains(a.body, tc.text) {
			t.Errorf("%s: %d, want %d with %q", tc.name, a.status, tc.status, tc.text)
		}
	}
	a := b.do(t, http.MethodPost, "/dashboard/sign-in", url.Values{"_csrf": {token}, "email": {"dev@example.com"}, "password": {password}})
	expectStatus(t, a, http.StatusSeeOther)
	var sess *http.Cookie
	for _, c := range a.cookies {
		if c.Name == "paylane_session" {
			sess = c
		}
	}
	if sess == nil || !sess.HttpOnly || !sess.Secure || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/dashboard" {
		t.Fatalf("session cookie %+v, want HttpOnly, Secure, SameSite=Lax on /dashboard", sess)
	}
	if a := b.get(t, "/dashboard"); a.status != http.StatusFound || a.header.Get("Location") != "/dashboard/tokens" {
		t.Errorf("home after sign-in = %d to %q", a.status, a.header.Get("Location"))
	}
	tokens := b.open(t, "/dashboard/tokens")
	if tokens.header.Get("Cache-Control") != "no-store" || tokens.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("security headers %v", tokens.header)
	}

	// Sign-out needs the session's CSRF token, then ends the session.
	if a := b.do(t, http.MethodPost, "/dashboard/sign-out", url.Values{}); a.status != 419 {
		t.Errorf("sign-out without csrf = %d, want 419", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/sign-out", url.Values{"_csrf": {csrf(t, tokens)}})
	expectStatus(t, a, http.StatusSeeOther)
	b.cookies["paylane_session"] = sess // a copy kept from before
	b.wantGet(t, "/dashboard/tokens", http.StatusFound, "the signed-out session still opens pages")
}

func TestSessionIdleExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"dev@example.com", "Dev", "developer"})
	b := e.signedIn(t, "dev@example.com")
	*e.clock = e.clock.Add(11 * time.Hour)
	b.open(t, "/dashboard/tokens")
	*e.clock = e.clock.Add(11 * time.Hour) // 11 h after the last use
	b.open(t, "/dashboard/tokens")
	*e.clock = e.clock.Add(12 * time.Hour)
	b.wantGet(t, "/dashboard/tokens", http.StatusFound, "a session idle 12 h")
}

func TestTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"dev@example.com", "Dev", "developer"}, member{"fin@example.com", "Fin", "finance"})
	b := e.signedIn(t, "dev@example.com")

	form := b.open(t, "/dashboard/tokens/new")
	if !strings.Contains(form.body, `value="api:create-webhook"`) || strings.Contains(form.body, `value="api:create-contact"`) {
		t.Errorf("the form does not offer exactly the role's abilities:\n%s", form.body)
	}
	if strings.Contains(form.body, `value="dashboard:`) {
		t.Error("the form offers a dashboard ability")
	}
	token := csrf(t, form)
	tests := []struct {
		name   string
		form   url.Values
		status int
	}{
		{"forged ability", url.Values{"_csrf": {token}, "name": {"ci"}, "abilities": {"api:view-any-contact", "api:create-contact"}}, 403},
		{"dashboard ability", url.Values{"_csrf": {token}, "name": {"ci"}, "abilities": {"dashboard:manage-tokens"}}, 403},
		{"no csrf", url.Values{"name": {"ci"}, "abilities": {"api:view-any-contact"}}, 419},
		{"no name", url.Values{"_csrf": {token}, "abilities": {"api:view-any-contact"}}, 422},
		{"no abilities", url.Values{"_csrf": {token}, "name": {"ci"}}, 422},
	}
	for _, tc := range tests {
		if a := b.do(t, http.MethodPost, "/dashboard/tokens", tc.form); a.status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, a.status, tc.status)
		}
	}
	if n := len(e.identity.Tokens(tenant)); n != 0 {
		t.Fatalf("%d tokens minted by refused forms", n)
	}
	a := b.do(t, http.MethodPost, "/dashboard/tokens", url.Values{"_csrf": {token}, "name": {"billing sync"},
		"abilities": {"api:view-any-contact", "api:create-webhook"}})
	expectStatus(t, a, http.StatusCreated)
	minted := e.identity.Tokens(tenant)
	if len(minted) != 1 || !strings.Contains(a.body, `value="pl_1|`) || !strings.Contains(a.body, "shown only this once") {
		t.Fatalf("created page does not show the token once:\n%s", a.body)
	}
	list := b.get(t, "/dashboard/tokens")
	if strings.Contains(list.body, "pl_1|") || !strings.Contains(list.body, "billing sync") || !strings.Contains(list.body, "create-webhook") {
		t.Errorf("token list:\n%s", list.body)
	}
	a = b.do(t, http.MethodPost, "/dashboard/tokens/1/revoke", url.Values{"_csrf": {csrf(t, list)}})
	if a.status != http.StatusSeeOther || e.identity.Tokens(tenant)[0].RevokedAt == nil {
		t.Errorf("revoke: %d, token %+v", a.status, e.identity.Tokens(tenant)[0])
	}
	if a := b.do(t, http.MethodPost, "/dashboard/tokens/99/revoke", url.Values{"_csrf": {csrf(t, list)}}); a.status != http.StatusNotFound {
		t.Errorf("revoke unknown = %d, want 404", a.status)
	}

	// A role that does not manage tokens sees no tokens page.
	f := e.signedIn(t, "fin@example.com")
	f.wantGet(t, "/dashboard/tokens", http.StatusForbidden, "finance GET tokens")
	f.wantGet(t, "/dashboard/users", http.StatusForbidden, "finance GET users")
}

func TestSetPasswordLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, link := e.identity.AddUser(tenant, "new@example.com", "New Owner", "owner", "")
	b := e.browser()
	page := b.open(t, "/dashboard/set-password?token="+link)
	token := csrf(t, page)
	if a := b.do(t, http.MethodPost, "/dashboard/set-password", url.Values{"token": {link}, "password": {password}, "password_confirmation": {password}}); a.status != 419 {
		t.Errorf("no csrf = %d, want 419", a.status)
	}
	a := b.do(t, http.MethodPost, "/dashboard/set-password", url.Values{"_csrf": {token}, "token": {link}, "password": {password}, "password_confirmation": {"different one here"}})
	expectStatus(t, a, http.StatusUnprocessableEntity)
	a = b.do(t, http.MethodPost, "/dashboard/set-password", url.Values{"_csrf": {token}, "token": {link}, "password": {"short"}, "password_confirmation": {"short"}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "at least 12") {
		t.Errorf("short password: %d", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/set-password", url.Values{"_csrf": {token}, "token": {link}, "password": {password}, "password_confirmation": {password}})
	expectStatus(t, a, http.StatusSeeOther)
	users := b.open(t, "/dashboard/users")
	if !strings.Contains(users.body, "new@example.com") {
		t.Error("the owner's users page does not list the owner")
	}
	// The link is spent.
	c := e.browser()
	page = c.get(t, "/dashboard/set-password?token="+link)
	a = c.do(t, http.MethodPost, "/dashboard/set-password", url.Values{"_csrf": {csrf(t, page)}, "token": {link}, "password": {password}, "password_confirmation": {password}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "invalid, used or expired") {
		t.Errorf("spent link: %d", a.status)
	}
}

func TestDisabledUserIsSignedOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u, _ := e.identity.AddUser(tenant, "dev@example.com", "Dev", "developer", password)
	b := e.signedIn(t, "dev@example.com")
	b.open(t, "/dashboard/tokens")
	e.identity.Disable(u.ID)
	b.wantGet(t, "/dashboard/tokens", http.StatusFound, "a disabled user's session")
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"sup@example.com", "Sup", "support"})
	b, other := e.signedIn(t, "sup@example.com"), e.signedIn(t, "sup@example.com")
	page := b.open(t, "/dashboard/account")
	token := csrf(t, page)
	a := b.do(t, http.MethodPost, "/dashboard/account/password", url.Values{"_csrf": {token}, "current_password": {"wrong one here"},
		"password": {"a brand new password"}, "password_confirmation": {"a brand new password"}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "incorrect") {
		t.Errorf("wrong current password: %d", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/account/password", url.Values{"_csrf": {token}, "current_password": {password},
		"password": {"a brand new password"}, "password_confirmation": {"a brand new password"}})
	expectStatus(t, a, http.StatusSeeOther)
	b.open(t, "/dashboard/account")
	other.wantGet(t, "/dashboard/account", http.StatusFound, "another browser's session after a password change")
}

func TestUnknownPathsAndStatic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"sup@example.com", "Sup", "support"})
	b := e.browser()
	if a := b.get(t, "/dashboard/static/dashboard.css"); a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %s", a.status, a.header.Get("Content-Type"))
	}
	b.wantGet(t, "/dashboard/nothing-here", http.StatusFound, "unknown page without a session")
	b.signIn(t, "sup@example.com")
	b.wantGet(t, "/dashboard/static/web.go", 404, "static escape")
	if a := b.get(t, "/dashboard/nothing-here"); a.status != 404 || !strings.Contains(a.body, "Page not found") {
		t.Errorf("unknown page: %d", a.status)
	}
}

func TestOverview(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fin, _ := e.identity.AddUser(tenant, "fin@example.com", "Fin", "finance", password)
	e.identity.AddUser(tenant, "sup@example.com", "Sup", "support", password)
	e.txns.sums["receivable"] = []transactions.StatusSum{
		{Status: "paid", Currency: "USD", Count: 7, Amount: 420000},
		{Status: "paid", Currency: "EUR", Count: 1, Amount: 700},
		{Status: "pending", Currency: "USD", Count: 3, Amount: 1250},
	}
	b := e.signedIn(t, "fin@example.com")
	if a := b.get(t, "/dashboard"); a.header.Get("Location") != "/dashboard/overview" {
		t.Errorf("finance home goes to %q, want the overview", a.header.Get("Location"))
	}
	a := b.open(t, "/dashboard/overview")
	for _, want := range []string{"Receivables", "Last 30 days", "11 in all · €7.00 · $4,212.50",
		`>Paid</a></td><td data-label="Count" class="num">8</td><td data-label="Amount" class="num">€7.00 · $4,200.00</td>`,
		`>Pending</a></td><td data-label="Count" class="num">3</td><td data-label="Amount" class="num">$12.50</td>`,
		`>Failed</a></td><td data-label="Count" class="num">0</td>`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("overview lacks %q:\n%s", want, a.body)
		}
	}
	if strings.Contains(a.body, "Payables") {
		t.Error("finance's fake role cannot read payables, yet the overview shows them")
	}
	wantSince := e.clock.Add(-30 * 24 * time.Hour)
	if calls := e.txns.summaryCalls(); len(calls) != 1 || !calls[0].Equal(wantSince) {
		t.Errorf("summary calls since %v, want one since %v (30 days ago)", calls, wantSince)
	}
	e.txns.wantTokens(t, clienttest.UserTokenOf(tenant, fin.ID))
	s := e.signedIn(t, "sup@example.com")
	s.wantGet(t, "/dashboard/overview", http.StatusForbidden, "support (no view-any-receivable in the fake role) overview")
}

func TestInviteUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"dev@example.com", "Dev", "developer"})
	b := e.signedIn(t, "owner@example.com")
	page := b.open(t, "/dashboard/users")
	for _, want := range []string{`<label for="invite-email">`, `<option value="support">`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("users page lacks %s", want)
		}
	}
	token := csrf(t, page)
	if a := b.do(t, http.MethodPost, "/dashboard/users", url.Values{"email": {"new@example.com"}, "name": {"New"}, "role": {"support"}}); a.status != 419 {
		t.Errorf("invite without csrf = %d, want 419", a.status)
	}
	a := b.do(t, http.MethodPost, "/dashboard/users", url.Values{"_csrf": {token}, "email": {"dev@example.com"}, "name": {"Dup"}, "role": {"support"}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "already been taken") {
		t.Errorf("invite of a taken email: %d", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/users", url.Values{"_csrf": {token}, "email": {"new@example.com"}, "name": {"New Person"}, "role": {"support"}})
	expectStatus(t, a, http.StatusCreated)
	if !strings.Contains(a.body, `/dashboard/set-password?token=link-`) || !strings.Contains(a.body, "shown only this once") {
		t.Errorf("the invitation's link is not shown:\n%s", a.body)
	}
	// A developer cannot invite, even with a forged form.
	d := e.signedIn(t, "dev@example.com")
	acct := d.get(t, "/dashboard/account")
	if a := d.do(t, http.MethodPost, "/dashboard/users", url.Values{"_csrf": {csrf(t, acct)}, "email": {"x@example.com"}, "name": {"X"}, "role": {"owner"}}); a.status != http.StatusForbidden {
		t.Errorf("developer invite = %d, want 403", a.status)
	}
}

func TestWebhooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"dev@example.com", "Dev", "developer"}, member{"sup@example.com", "Sup", "support"})
	b := e.signedIn(t, "dev@example.com")
	page := b.open(t, "/dashboard/webhooks")
	if !strings.Contains(page.body, `value="receivable.paid"`) || !strings.Contains(page.body, "No endpoints yet") {
		t.Fatalf("webhooks page:\n%s", page.body)
	}
	token := csrf(t, page)
	a := b.do(t, http.MethodPost, "/dashboard/webhooks", url.Values{"_csrf": {token}, "name": {"orders"}, "url": {"http://x"}, "events": {"receivable.paid"}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "must be https") || !strings.Contains(a.body, `value="receivable.paid" checked`) {
		t.Errorf("refused endpoint: %d\n%s", a.status, a.body)
	}
	if a := b.do(t, http.MethodPost, "/dashboard/webhooks", url.Values{"name": {"orders"}, "url": {"https://example.com/h"}}); a.status != 419 {
		t.Errorf("create without csrf = %d, want 419", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/webhooks", url.Values{"_csrf": {token}, "name": {"orders"}, "url": {"https://example.com/h"}, "events": {"receivable.paid"}})
	expectStatus(t, a, http.StatusCreated)
	if !strings.Contains(a.body, `value="whsec_c2VjcmV0"`) || !strings.Contains(a.body, "shown only this once") {
		t.Errorf("created page does not show the secret once:\n%s", a.body)
	}
	list := b.get(t, "/dashboard/webhooks")
	if !strings.Contains(list.body, "https://example.com/h") || strings.Contains(list.body, "whsec_") {
		t.Errorf("endpoint list:\n%s", list.body)
	}
	// Support reads no webhooks.
	s := e.signedIn(t, "sup@example.com")
	s.wantGet(t, "/dashboard/webhooks", http.StatusForbidden, "support GET webhooks")
}
