package pages_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
)

func errorCode(t *testing.T, a answer) string {
	t.Helper()
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &env); err != nil {
		t.Fatalf("not JSON: %s", a.body)
	}
	return env.Error.Code
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	token := f.open(t, link)

	form := card(sandbox.CardPays)
	expectPage(t, f.post(t, link, form), 419, "This form has expired")
	form.Set("_csrf", strings.Repeat("0", len(token)))
	expectPage(t, f.post(t, link, form), 419)
	a := f.post(t, link, form, "Accept: application/json")
	if a.status != 419 || errorCode(t, a) != "csrf_token_mismatch" {
		t.Fatalf("JSON 419: %d %s", a.status, a.body)
	}
	// The right token from another browser (no cookie) is refused too.
	form.Set("_csrf", token)
	jar, _ := cookiejar.New(nil)
	stranger := f
	stranger.browser = &http.Client{Jar: jar}
	expectPage(t, stranger.post(t, link, form), 419)
	// A token of another page is refused.
	other := f.create(t, "receivables")
	expectPage(t, f.post(t, f.link(t, other), form), 419)
	if got := f.show(t, "receivables", it.ID); got.Status != "pending" {
		t.Fatalf("refused posts moved it to %s", got.Status)
	}
	expectPage(t, f.post(t, link, form), http.StatusOK, "Payment received")
}

func TestSignedLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	path, query, _ := strings.Cut(link, "?")
	sig := query[strings.Index(query, "signature=")+len("signature="):]
	flipped := map[bool]string{true: "1", false: "0"}[sig[0] == '0'] + sig[1:]
	for name, u := range map[string]string{
		"tampered signature": strings.Replace(link, sig, flipped, 1),
		"no signature":       path + "?" + query[:strings.Index(query, "&signature=")],
		"no query":           path,
		"later expiry":       strings.Replace(link, "expires=", "expires=9", 1),
		"other item":         strings.Replace(link, it.ID, "01JD3X0Q4Z8W2E5R7T9Y1V3K5M", 1),
		"payout path":        strings.Replace(link, "/l/r/", "/l/p/", 1),
	} {
		expectPage(t, f.get(t, u), http.StatusUnauthorized, "This link is not valid")
		if a := f.get(t, u, "Accept: application/json"); a.status != http.StatusUnauthorized || errorCode(t, a) != "invalid_signature" {
			t.Errorf("%s: JSON answer %d %s", name, a.status, a.body)
		}
	}
	expectPage(t, f.post(t, strings.Replace(link, sig, flipped, 1), card(sandbox.CardPays)), http.StatusUnauthorized)

	// Revoked, then replaced: the old link stays revoked, the new one works.
	f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/revoke-link", f.token, "")
	a := f.get(t, link, "Accept: application/json")
	if a.status != http.StatusGone || errorCode(t, a) != "link_revoked" {
		t.Fatalf("revoked: %d %s", a.status, a.body)
	}
	f.env.Clock.Advance(2 * time.Second)
	f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/resend-notification", f.token, "")
	fresh := f.link(t, f.show(t, "receivables", it.ID))
	expectPage(t, f.get(t, link), http.StatusGone, "This link is no longer active")
	expectPage(t, f.get(t, fresh), http.StatusOK, `name="card_number"`)

	// Expired by time.
	f.env.Clock.Advance(73 * time.Hour)
	a = f.get(t, fresh, "Accept: application/json")
	if a.status != http.StatusGone || errorCode(t, a) != "link_expired" {
		t.Fatalf("expired: %d %s", a.status, a.body)
	}
	expectPage(t, f.get(t, fresh), http.StatusGone, "This link has expired")

	// Cancelled: revoked.
	other := f.create(t, "receivables")
	otherLink := f.link(t, other)
	otherToken := f.open(t, otherLink)
	f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+other.ID+"/cancel", f.token, "")
	expectPage(t, f.get(t, otherLink), http.StatusGone, "This link is no longer active")
	// Cancelled and deleted: still revoked, not an unknown page.
	if r := f.env.Do(t, http.MethodDelete, "/api/v1/receivables/"+other.ID, f.token, ""); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if a := f.get(t, otherLink, "Accept: application/json"); a.status != http.StatusGone || errorCode(t, a) != "link_revoked" {
		t.Fatalf("link of a deleted receivable: %d %s", a.status, a.body)
	}
	form := card(sandbox.CardPays)
	form.Set("_csrf", otherToken)
	expectPage(t, f.post(t, otherLink, form), http.StatusGone, "This link is no longer active")
}

func TestPageHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.get(t, f.link(t, f.create(t, "payables")))
	expectPage(t, a, http.StatusOK, `name="destination_type"`)
	for k, want := range map[string]string{
		"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
		"Content-Type": "text/html; charset=utf-8",
	} {
		if got := a.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if c := a.header.Get("Set-Cookie"); !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") || !strings.Contains(c, "secure") {
		t.Errorf("cookie %q", c)
	}
	// Both pages work without JavaScript: none is sent, and the policy
	// would refuse any (default-src 'none' allows no script).
	pay := f.get(t, f.link(t, f.create(t, "receivables")))
	for name, pg := range map[string]answer{"payout": a, "pay": pay} {
		if strings.Contains(strings.ToLower(pg.body), "<script") {
			t.Errorf("%s page carries a script", name)
		}
		if csp := pg.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("%s page Content-Security-Policy %q", name, csp)
		}
	}
}
