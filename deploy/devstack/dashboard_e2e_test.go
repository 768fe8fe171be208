package devstack

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

// TestDashboardInChromium drives the tenant dashboard in headless Chromium
// through the gateway over HTTPS: a developer invited on the operator
// plane sets a password from the one-time link, signs out and in again,
// mints a token whose form lists only the developer role's abilities (a
// forged ability is refused with 403), uses it on the API, revokes it
// (then 401), and meets the 419 page for a form without its CSRF token.
// The demo owner from devstack.json signs in too. With
// UPDATE_SCREENSHOTS=1 each page is captured at 1280 and 375 px into
// docs/dashboard/.
func TestDashboardInChromium(t *testing.T) {
	stack, e := startWithClient(t)
	info := stack.info
	ctx := context.Background()
	b := startBrowser(t)
	shots := screenshotDir(t)
	base := info.GatewayURL + "/dashboard"

	// Two pending receivables for the overview.
	contact := e.send(t, http.MethodPost, "/api/v1/contacts", info.DemoToken, map[string]any{"first_name": "Ada", "phone": "+14155550199"}, nil)
	e.expectStatus(t, contact, http.StatusCreated)
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(contact.body, &created); err != nil {
		t.Fatal(err)
	}
	const pending = 2
	for i := range pending {
		r := e.send(t, http.MethodPost, "/api/v1/receivables", info.DemoToken,
			map[string]any{"contact_id": created.Data.ID, "amount": 4200 + i, "description": "Invoice"}, nil)
		e.expectStatus(t, r, http.StatusCreated)
	}

	// Without a session every page sends the browser to sign-in.
	b.navigate(t, base+"/tokens")
	if url := b.eval(t, `location.pathname`); url != "/dashboard/sign-in" {
		t.Fatalf("without a session /dashboard/tokens ends at %s", url)
	}
	shots.take(t, b, "sign-in")

	dev, err := e.admin.CreateUser(ctx, info.DemoTenantID, client.UserInput{Email: "dev@demo.paylane.test", Name: "Dana Developer", Role: "developer"})
	if err != nil {
		t.Fatalf("creating the developer: %v", err)
	}
	if !strings.HasPrefix(dev.SetPasswordURL, info.GatewayURL+"/dashboard/set-password?token=") {
		t.Fatalf("set_password_url %q is not on the gateway", dev.SetPasswordURL)
	}
	const devPassword = "a long developer password"
	b.navigate(t, dev.SetPasswordURL)
	shots.take(t, b, "set-password")
	b.submit(t, fillJS(map[string]string{"password": devPassword, "password_confirmation": devPassword}, "button[type=submit]"))
	if path := b.eval(t, `location.pathname`); path != "/dashboard/overview" {
		t.Fatalf("after setting the password the browser is at %s:\n%s", path, b.eval(t, `document.body.innerText`))
	}

	// Sign out, then in with the new password.
	b.submit(t, `document.querySelector('form.signout button').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "You have signed out") {
		t.Fatalf("after sign-out:\n%s", text)
	}
	b.submit(t, fillJS(map[string]string{"email": "dev@demo.paylane.test", "password": devPassword}, "button[type=submit]"))
	if path := b.eval(t, `location.pathname`); path != "/dashboard/overview" {
		t.Fatalf("after sign-in the browser is at %s", path)
	}
	// The overview counts what the API holds, read with the developer's rights.
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Receivables") || !strings.Contains(text, "Payables") ||
		!strings.Contains(text, fmt.Sprintf("%d in all", pending)) {
		t.Fatalf("the overview shows:\n%s", text)
	}

	// The form offers exactly the developer role's API abilities.
	b.navigate(t, base+"/tokens/new")
	offered := b.eval(t, `Array.from(document.querySelectorAll('input[name=abilities]')).map(i => i.value).join(',')`)
	if !strings.Contains(offered, "api:create-webhook") || strings.Contains(offered, "api:create-contact") ||
		strings.Contains(offered, "dashboard:") || !strings.Contains(offered, "api:view-any-contact") {
		t.Fatalf("the developer's form offers %s", offered)
	}
	shots.take(t, b, "token-new")

	// A forged ability, added to the form by hand, is refused.
	b.submit(t, `
		const f = document.querySelector('form[action="/dashboard/tokens"]');
		f.querySelector('#name').value = 'forged';
		const x = document.createElement('input');
		x.type = 'hidden'; x.name = 'abilities'; x.value = 'api:create-contact';
		f.appendChild(x);
		f.querySelector('button[type=submit]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Error 403") {
		t.Fatalf("a forged ability gave:\n%s", text)
	}

	b.navigate(t, base+"/tokens/new")
	b.submit(t, `
		document.querySelector('#name').value = 'contacts reader';
		document.querySelector('input[value="api:view-any-contact"]').click();
		document.querySelector('input[value="api:view-contact"]').click();
		document.querySelector('form[action="/dashboard/tokens"] button[type=submit]').click(); "submitted"`)
	token := b.eval(t, `document.getElementById('new-token') ? document.getElementById('new-token').value : document.body.innerText`)
	if !strings.HasPrefix(token, "pl_") {
		t.Fatalf("the created page shows no token:\n%s", token)
	}
	shots.take(t, b, "tokens")
	e.expectStatus(t, e.get(t, "/api/v1/contacts", token), http.StatusOK)
	e.expectError(t, e.send(t, http.MethodPost, "/api/v1/contacts", token, map[string]any{"first_name": "A", "phone": "+15550001234"}, nil),
		http.StatusForbidden, "forbidden")

	// Revoke it in the dashboard: the API refuses it once the gateway
	// hears of the revocation.
	b.navigate(t, base+"/tokens")
	b.submit(t, `document.querySelector('button[aria-label="Revoke token contacts reader"]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "The token is revoked") {
		t.Fatalf("after revoke:\n%s", text)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.get(t, "/api/v1/contacts", token)
		if r.status == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revoked token still answers %d", r.status)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// A webhook endpoint, created with the developer's rights; its secret shows once.
	b.navigate(t, base+"/webhooks")
	b.submit(t, `
		document.getElementById('wh-name').value = 'orders';
		document.getElementById('wh-url').value = 'https://127.0.0.1:9/paylane';
		document.querySelector('input[value="receivable.paid"]').click();
		document.querySelector('form[action="/dashboard/webhooks"] button[type=submit]').click(); "submitted"`)
	if secret := b.eval(t, `document.getElementById('signing-secret') ? document.getElementById('signing-secret').value : document.body.innerText`); !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("creating a webhook endpoint shows:\n%s", secret)
	}
	shots.take(t, b, "webhooks")
	listed := e.get(t, "/api/v1/webhook-endpoints", info.DemoToken)
	if listed.status != http.StatusOK || !strings.Contains(string(listed.body), "https://127.0.0.1:9/paylane") {
		t.Errorf("the API does not list the dashboard's endpoint: %d %s", listed.status, listed.body)
	}

	// A form without its CSRF token is the 419 page.
	b.navigate(t, base+"/account")
	shots.take(t, b, "account")
	b.submit(t, `
		const f = document.querySelector('form.signout');
		f.querySelector('input[name=_csrf]').remove();
		f.querySelector('button').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Page expired") || !strings.Contains(text, "419") {
		t.Fatalf("a form without its CSRF token gave:\n%s", text)
	}
	shots.take(t, b, "page-expired")

	// The demo owner of devstack.json signs in and sees users and roles.
	b.navigate(t, base+"/account")
	b.submit(t, `document.querySelector('form.signout button').click(); "submitted"`)
	b.submit(t, fillJS(map[string]string{"email": info.DemoUserEmail, "password": info.DemoUserPassword}, "button[type=submit]"))
	b.navigate(t, base+"/users")
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "dev@demo.paylane.test") || !strings.Contains(text, info.DemoUserEmail) {
		t.Fatalf("the owner's users page:\n%s", text)
	}
	// The owner invites a support user; the one-time link is on the gateway.
	b.submit(t, `
		document.getElementById('invite-email').value = 'sam@demo.paylane.test';
		document.getElementById('invite-name').value = 'Sam Support';
		document.getElementById('invite-role').value = 'support';
		document.querySelector('form.invite button[type=submit]').click(); "submitted"`)
	invite := b.eval(t, `document.getElementById('invite-link') ? document.getElementById('invite-link').value : document.body.innerText`)
	if !strings.HasPrefix(invite, info.GatewayURL+"/dashboard/set-password?token=") {
		t.Fatalf("the invitation shows:\n%s", invite)
	}
}

// fillJS sets the fields with those ids and clicks the submit selector.
func fillJS(values map[string]string, submit string) string {
	var js strings.Builder
	for id, v := range values {
		fmt.Fprintf(&js, "document.getElementById(%q).value = %q;\n", id, v)
	}
	fmt.Fprintf(&js, "document.querySelector(%q).click(); \"submitted\"", submit)
	return js.String()
}

// screenshots captures pages at a desktop and a phone width when
// UPDATE_SCREENSHOTS=1, into docs/dashboard/.
type screenshots struct{ dir string }

func screenshotDir(t *testing.T) screenshots {
	t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return screenshots{}
	}
	dir := filepath.Join("..", "..", "docs", "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return screenshots{dir: dir}
}

// take renders the page at 1280 and 375 CSS px and writes
// <name>-1280.png and <name>-375.png; then it restores the phone width
// the browser started with.
func (s screenshots) take(t *testing.T, b *browser, name string) {
	t.Helper()
	if s.dir == "" {
		return
	}
	for _, w := range []struct {
		width, height int
		mobile        bool
	}{{1280, 800, false}, {375, 812, true}} {
		b.call(t, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": w.width, "height": w.height, "deviceScaleFactor": 1, "mobile": w.mobile}, nil)
		var shot struct {
			Data string `json:"data"`
		}
		b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
		raw, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != w.width {
			t.Fatalf("%s at %d px: not a %d px PNG (%v)", name, w.width, w.width, err)
		}
		if len(raw) > 200_000 {
			t.Errorf("%s at %d px is %d bytes, want under 200 KB", name, w.width, len(raw))
		}
		if err := os.WriteFile(filepath.Join(s.dir, fmt.Sprintf("%s-%d.png", name, w.width)), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.call(t, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}, nil)
}
