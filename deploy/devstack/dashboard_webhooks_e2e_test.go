package devstack

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestDashboardWebhooksInChromium drives the demo owner's dashboard in
// headless Chromium through the gateway: an endpoint created in the
// dashboard receives a contact created on the API, and its page shows the
// delivery with its status and response code; a secret rotated in the
// dashboard signs the next delivery (the Standard Webhooks library
// verifies it with the new secret); a refused delivery shows on the
// overview; an endpoint turned off on the API is enabled again in the
// dashboard (the API reads it active). Then the owner creates a custom
// role, invites a user, and disables them: their session ends and their
// password no longer signs in. With UPDATE_SCREENSHOTS=1 the endpoint,
// users and role pages are captured at 1280 and 375 px into docs/dashboard/.
func TestDashboardWebhooksInChromium(t *testing.T) {
	stack, e := startWithClient(t)
	info := stack.info
	b := startBrowser(t)
	shots := screenshotDir(t)
	base := info.GatewayURL + "/dashboard"
	rc := newStatusReceiver(t, filepath.Join(info.Root, "tls"))

	b.navigate(t, base+"/sign-in")
	b.submit(t, fillJS(map[string]string{"email": info.DemoUserEmail, "password": info.DemoUserPassword}, "button[type=submit]"))

	// An endpoint made in the dashboard, subscribed to contacts.
	b.navigate(t, base+"/webhooks")
	b.submit(t, `
		document.getElementById('wh-name').value = 'dashboard receiver';
		document.getElementById('wh-url').value = '`+rc.url+`';
		document.querySelector('input[value="contact.created"]').click();
		document.querySelector('form[action="/dashboard/webhooks"] button[type=submit]').click(); "submitted"`)
	first := b.eval(t, `document.getElementById('signing-secret') ? document.getElementById('signing-secret').value : document.body.innerText`)
	if !strings.HasPrefix(first, "whsec_") {
		t.Fatalf("creating the endpoint shows:\n%s", first)
	}
	b.submit(t, `document.querySelector('a[href^="/dashboard/webhooks/"]').click(); "submitted"`)
	id := strings.TrimPrefix(b.eval(t, `location.pathname`), "/dashboard/webhooks/")
	if len(id) != 26 {
		t.Fatalf("the list links to %q, not an endpoint page", id)
	}

	// A contact created on the API is delivered, and the page shows it.
	ada := createContact(t, e, "Ada", "+14155550171")
	got := rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.created" && b.Data.ID == ada })
	verifyWith(t, first, got)
	pageShows(t, b, base+"/webhooks/"+id, "Succeeded", "HTTP 200", "contact.created")

	// Rotate the secret in the dashboard: the next delivery verifies with it.
	b.submit(t, `document.querySelector('form[action$="/rotate-secret"] button').click(); "submitted"`)
	second := b.eval(t, `document.getElementById('signing-secret') ? document.getElementById('signing-secret').value : document.body.innerText`)
	if !strings.HasPrefix(second, "whsec_") || second == first {
		t.Fatalf("rotating the secret shows:\n%s", second)
	}
	bob := createContact(t, e, "Bob", "+14155550172")
	verifyWith(t, second, rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.created" && b.Data.ID == bob }))
	pageShows(t, b, base+"/webhooks/"+id, "2 in all")
	shots.take(t, b, "webhook")

	// A refused delivery: on the endpoint's page and the overview.
	rc.status.Store(http.StatusInternalServerError)
	cy := createContact(t, e, "Cy", "+14155550173")
	rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.created" && b.Data.ID == cy })
	pageShows(t, b, base+"/webhooks/"+id, "HTTP 500")
	pageShows(t, b, base+"/overview", "Recent failed deliveries", "dashboard receiver", "HTTP 500")
	rc.status.Store(http.StatusOK)

	// Turned off on the API, enabled again in the dashboard.
	off := e.send(t, http.MethodPatch, "/api/v1/webhook-endpoints/"+id, info.DemoToken, map[string]any{"is_active": false}, nil)
	e.expectStatus(t, off, http.StatusOK)
	b.navigate(t, base+"/webhooks/"+id)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Turned off") {
		t.Fatalf("the turned-off endpoint's page:\n%s", text)
	}
	b.submit(t, `document.querySelector('form[action$="/enable"] button').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "active again") {
		t.Fatalf("after enabling:\n%s", text)
	}
	var ep struct {
		Data struct {
			IsActive bool `json:"is_active"`
		} `json:"data"`
	}
	r := e.get(t, "/api/v1/webhook-endpoints/"+id, info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	whDecode(t, r.body, &ep)
	if !ep.Data.IsActive {
		t.Error("the API reads the endpoint enabled in the dashboard as inactive")
	}

	// A custom role, created by the owner.
	b.navigate(t, base+"/roles/new")
	b.submit(t, `
		document.getElementById('role-name').value = 'auditor';
		document.querySelector('input[value="api:view-any-contact"]').click();
		document.querySelector('input[value="api:view-any-receivable"]').click();
		document.querySelector('input[value="api:view-any-webhook"]').click();
		document.querySelector('form[action="/dashboard/roles"] button[type=submit]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); b.eval(t, `location.pathname`) != "/dashboard/roles/auditor" || !strings.Contains(text, "The role is created") {
		t.Fatalf("after creating a role:\n%s", text)
	}
	shots.take(t, b, "role")

	// A user invited with it signs in, elsewhere; the owner disables them.
	b.navigate(t, base+"/users")
	b.submit(t, `
		document.getElementById('invite-email').value = 'wu@demo.paylane.test';
		document.getElementById('invite-name').value = 'Wu Auditor';
		document.getElementById('invite-role').value = 'auditor';
		document.querySelector('form.invite button[type=submit]').click(); "submitted"`)
	link := b.eval(t, `document.getElementById('invite-link') ? document.getElementById('invite-link').value : document.body.innerText`)
	const wuPassword = "a long auditor password"
	wu := newFormClient(t, e)
	wu.setPassword(t, link, wuPassword)
	if status, _ := wu.get(t, base+"/overview"); status != http.StatusOK {
		t.Fatalf("the invited auditor's overview = %d", status)
	}
	b.navigate(t, base+"/users")
	b.submit(t, `document.querySelector('button[aria-label="Disable Wu Auditor"]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "their sessions have ended") {
		t.Fatalf("after disabling:\n%s", text)
	}
	shots.take(t, b, "users")
	if status, loc := wu.get(t, base+"/overview"); status != http.StatusFound || loc != "/dashboard/sign-in" {
		t.Errorf("the disabled user's session: %d to %q, want 302 to sign-in", status, loc)
	}
	if status := wu.signIn(t, base, "wu@demo.paylane.test", wuPassword); status != http.StatusUnauthorized {
		t.Errorf("the disabled user's sign-in = %d, want 401", status)
	}
}

// createContact creates a contact on the API with the demo token and
// returns its id.
func createContact(t *testing.T, e *e2e, name, phone string) string {
	t.Helper()
	r := e.send(t, http.MethodPost, "/api/v1/contacts", e.info.DemoToken, map[string]any{"first_name": name, "phone": phone}, nil)
	e.expectStatus(t, r, http.StatusCreated)
	var c struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	whDecode(t, r.body, &c)
	return c.Data.ID
}

// verifyWith checks a delivery's signature with secret (Standard Webhooks).
func verifyWith(t *testing.T, secret string, got whReceived) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(got.raw, got.header); err != nil {
		t.Fatalf("the delivery does not verify with the dashboard's secret: %v", err)
	}
}

// pageShows reloads url until its text holds every want.
func pageShows(t *testing.T, b *browser, url string, want ...string) {
	t.Helper()
	var text string
	whWaitUntil(t, func() bool {
		b.navigate(t, url)
		text = b.eval(t, `document.body.innerText`)
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
}

// statusReceiver is a local HTTPS webhook receiver (the devstack's
// certificate) answering with status.
type statusReceiver struct {
	whReceiver
	status atomic.Int32
}

func newStatusReceiver(t *testing.T, tlsDir string) *statusReceiver {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(tlsDir, "gateway.pem"), filepath.Join(tlsDir, "gateway-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	rc := &statusReceiver{}
	rc.status.Store(http.StatusOK)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b whBody
		_ = json.Unmarshal(raw, &b)
		rc.mu.Lock()
		rc.got = append(rc.got, whReceived{header: r.Header.Clone(), raw: raw, body: b})
		rc.mu.Unlock()
		w.WriteHeader(int(rc.status.Load()))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	rc.url = srv.URL + "/paylane-hooks"
	return rc
}

// formClient is a second browser without JavaScript: a cookie jar and
// form posts, for a user signed in while the owner acts in Chromium.
type formClient struct{ hc *http.Client }

var formCSRF = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func newFormClient(t *testing.T, e *e2e) *formClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: e.hc.Transport, Jar: jar, Timeout: e.hc.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	t.Cleanup(hc.CloseIdleConnections)
	return &formClient{hc: hc}
}

// get answers the status, the redirect's target and the body's CSRF token.
func (f *formClient) get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := f.hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Location")
}

// csrfOf reads the CSRF token of the page at u.
func (f *formClient) csrfOf(t *testing.T, u string) string {
	t.Helper()
	resp, err := f.hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := formCSRF.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on %s (%d)", u, resp.StatusCode)
	}
	return string(m[1])
}

func (f *formClient) post(t *testing.T, u string, form url.Values) int {
	t.Helper()
	resp, err := f.hc.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// setPassword opens a one-time link and chooses password: signed in.
func (f *formClient) setPassword(t *testing.T, link, password string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	token := f.csrfOf(t, link)
	status := f.post(t, u.Scheme+"://"+u.Host+u.Path, url.Values{"_csrf": {token}, "token": {u.Query().Get("token")},
		"password": {password}, "password_confirmation": {password}})
	if status != http.StatusSeeOther {
		t.Fatalf("setting the invited user's password = %d", status)
	}
}

func (f *formClient) signIn(t *testing.T, base, email, password string) int {
	t.Helper()
	token := f.csrfOf(t, base+"/sign-in")
	return f.post(t, base+"/sign-in", url.Values{"_csrf": {token}, "email": {email}, "password": {password}})
}
