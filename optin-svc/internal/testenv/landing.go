package testenv

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// Browser is a person on a landing page: it keeps the form token cookie
// (sent by hand: the test server is plain HTTP and the cookie is Secure).
type Browser struct {
	env    *Env
	cookie string
	// CSRF is the _csrf field of the last form shown.
	CSRF string
}

// Browser returns a browser without cookies.
func (e *Env) Browser() *Browser { return &Browser{env: e} }

// Get opens a page.
func (b *Browser) Get(t testing.TB, path string) Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.env.BaseURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.send(t, req)
}

// Submit posts the form of a page with its _csrf (unless the form sets one).
func (b *Browser) Submit(t testing.TB, path string, form url.Values) Response {
	t.Helper()
	if !form.Has("_csrf") {
		form.Set("_csrf", b.CSRF)
	}
	req, err := http.NewRequest(http.MethodPost, b.env.BaseURL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.send(t, req)
}

func (b *Browser) send(t testing.TB, req *http.Request) Response {
	t.Helper()
	if b.cookie != "" {
		req.Header.Set("Cookie", b.cookie)
	}
	res := Send(t, req)
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == "optin_csrf" {
			b.cookie = c.Name + "=" + c.Value
		}
	}
	if m := csrfField.FindSubmatch(res.Body); m != nil {
		b.CSRF = string(m[1])
	}
	return res
}

// Subscribe opens code's landing page in a new browser and submits number
// with consent, failing the test unless the page answers 200.
func (e *Env) Subscribe(t testing.TB, code Code, number string) {
	t.Helper()
	b := e.Browser()
	b.Get(t, code.Path())
	if res := b.Submit(t, code.Path(), url.Values{"phone": {number}, "consent": {"yes"}}); res.Status != http.StatusOK {
		t.Fatalf("subscribing = %d %s", res.Status, res.Body)
	}
}
