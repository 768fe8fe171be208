package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

type consentRow struct {
	ID          string  `json:"id"`
	ContactID   string  `json:"contact_id"`
	OptInCodeID *string `json:"opt_in_code_id"`
	Status      string  `json:"status"`
	Channel     string  `json:"channel"`
	ConfirmedAt *string `json:"confirmed_at"`
}

func consents(t *testing.T, env *testenv.Env, token, query string) []consentRow {
	t.Helper()
	res := env.Do(t, http.MethodGet, "/api/v1/opt-ins"+query, token, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET /opt-ins%s = %d %s", query, res.Status, res.Body)
	}
	var page struct{ Data []consentRow }
	res.Decode(t, &page)
	return page.Data
}

func TestLandingPageFormIsAccessibleAndCountsScans(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	code := env.NewCode(t, tenant, map[string]any{"name": "Poster"})
	b := env.Browser()
	res := b.Get(t, code.Path())
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET = %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	page := string(res.Body)
	for _, want := range []string{
		`<html lang="en">`, `<form method="post" action="` + code.Path() + `"`,
		`<label for="phone">`, `id="phone" name="phone" type="tel"`,
		`<label for="consent">`, `id="consent" name="consent" type="checkbox" value="yes"`,
		`name="_csrf" value="`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("page uses JavaScript")
	}
	if b.CSRF == "" || !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Errorf("no form token cookie: %v", res.Header.Values("Set-Cookie"))
	}
	b.Get(t, code.Path())
	token := env.Token(t, tenant, viewCodes)
	var one struct{ Data testenv.Code }
	env.Do(t, http.MethodGet, "/api/v1/opt-in-codes/"+code.ID, token, nil).Decode(t, &one)
	if one.Data.ScanCount != 2 || one.Data.OptInCount != 0 {
		t.Errorf("counts = scans %d, opt-ins %d, want 2 and 0", one.Data.ScanCount, one.Data.OptInCount)
	}
}

func TestLandingPageSingleOptIn(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	code := env.NewCode(t, tenant, map[string]any{"name": "Counter"})
	token := env.Token(t, tenant, viewCodes)
	b := env.Browser()
	b.Get(t, code.Path())

	res := b.Submit(t, code.Path(), url.Values{"phone": {"(415) 555-0170"}, "consent": {"yes"}})
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "you are signed up") {
		t.Fatalf("POST = %d %s", res.Status, res.Body)
	}
	contact := env.Contacts.ContactOf(tenant, "+14155550170")
	got := consents(t, env, token, "")
	want := []consentRow{{ID: got[0].ID, ContactID: contact, OptInCodeID: &code.ID, Status: "confirmed",
		Channel: "sms", ConfirmedAt: got[0].ConfirmedAt}}
	if diff := cmp.Diff(want, got); diff != "" || contact == "" || got[0].ConfirmedAt == nil {
		t.Fatalf("consents (-want +got):\n%s", diff)
	}
	// The same number again: still one consent, still confirmed.
	res = b.Submit(t, code.Path(), url.Values{"phone": {"+14155550170"}, "consent": {"yes"}})
	if res.Status != http.StatusOK || len(consents(t, env, token, "")) != 1 {
		t.Fatalf("second POST = %d, consents %d", res.Status, len(consents(t, env, token, "")))
	}
	var one struct{ Data testenv.Code }
	env.Do(t, http.MethodGet, "/api/v1/opt-in-codes/"+code.ID, token, nil).Decode(t, &one)
	if one.Data.OptInCount != 1 {
		t.Errorf("opt_in_count = %d, want 1", one.Data.OptInCount)
	}
	outbox := env.Outbox(t, tenant)
	if diff := cmp.Diff([]string{events.TypeOptInConfirmed}, testenv.Types(outbox)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	var data events.OptIn
	if err := outbox[0].Decode(&data); err != nil || data.ID != got[0].ID || data.Status != "confirmed" || data.ContactID != contact {
		t.Errorf("opt_in.confirmed data = %+v (%v)", data, err)
	}
	for _, q := range []string{"?status=confirmed", "?contact_id=" + contact, "?opt_in_code_id=" + code.ID, "?since=2000-01-01T00:00:00Z"} {
		if n := len(consents(t, env, token, q)); n != 1 {
			t.Errorf("GET /opt-ins%s = %d consents, want 1", q, n)
		}
	}
	for _, q := range []string{"?status=pending", "?contact_id=01J00000000000000000000000", "?since=2999-01-01T00:00:00Z"} {
		if n := len(consents(t, env, token, q)); n != 0 {
			t.Errorf("GET /opt-ins%s = %d consents, want 0", q, n)
		}
	}
}

func TestLandingPageDoubleOptInSendsAConfirmation(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	code := env.NewCode(t, tenant, map[string]any{"name": "Poster", "double_opt_in": true})
	token := env.Token(t, tenant, viewCodes)
	b := env.Browser()
	if page := b.Get(t, code.Path()); !strings.Contains(string(page.Body), "reply YES") {
		t.Errorf("double opt-in page does not announce the confirmation text")
	}
	res := b.Submit(t, code.Path(), url.Values{"phone": {"+14155550180"}, "consent": {"yes"}})
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "reply YES to confirm") {
		t.Fatalf("POST = %d %s", res.Status, res.Body)
	}
	got := consents(t, env, token, "")
	if len(got) != 1 || got[0].Status != "pending" || got[0].ConfirmedAt != nil {
		t.Fatalf("consents = %+v, want one pending", got)
	}
	var sms testenv.Message
	testenv.Eventually(t, "the confirmation SMS", func() bool {
		list := env.Messages(t, tenant, "+14155550180")
		if len(list) == 1 && list[0].Status == "delivered" {
			sms = list[0]
			return true
		}
		return false
	})
	if sms.Kind != events.KindOptInConfirm || !strings.Contains(sms.Body, "Reply YES") {
		t.Errorf("confirmation SMS = %+v", sms)
	}
	want := []string{events.TypeConsentRequested, "message.queued", "message.sent", "message.delivered"}
	if types := testenv.Types(env.Outbox(t, tenant)); cmp.Diff(want, types) != "" {
		t.Errorf("events = %v, want %v (the pending consent, the message's; no opt_in.confirmed yet)", types, want)
	}
}

func TestLandingPageRefusals(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	off := env.NewTenant(t, testenv.TenantOptions{OptIn: false})
	live := env.NewCode(t, tenant, map[string]any{"name": "Live"})
	retired := env.NewCode(t, tenant, map[string]any{"name": "Retired", "is_live": false})
	hidden := env.NewCode(t, off, map[string]any{"name": "Flag off"})
	for _, path := range []string{"/l/o/nosuchcode", "/l/o/%00", "/l/o/%FF", retired.Path(), hidden.Path()} {
		if res := env.Browser().Get(t, path); res.Status != http.StatusNotFound || !strings.Contains(string(res.Body), "not active") {
			t.Errorf("GET %s = %d %s, want the 404 page", path, res.Status, res.Body)
		}
	}

	b := env.Browser()
	b.Get(t, live.Path())
	tests := []struct {
		name   string
		form   url.Values
		fresh  bool
		status int
		want   []string
	}{
		{"no form token", url.Values{"phone": {"+14155550190"}, "consent": {"yes"}, "_csrf": {""}}, false, 419, []string{"Please try again"}},
		{"wrong form token", url.Values{"phone": {"+14155550190"}, "consent": {"yes"}, "_csrf": {strings.Repeat("A", 43)}}, false, 419, nil},
		{"no cookie", url.Values{"phone": {"+14155550190"}, "consent": {"yes"}}, true, 419, nil},
		{"bad phone and no consent", url.Values{"phone": {"12<b>"}}, false, 422,
			[]string{`role="alert"`, `aria-invalid="true"`, "Enter a valid mobile phone number", "Tick the box", `value="12&lt;b&gt;"`}},
		{"consent not yes", url.Values{"phone": {"+14155550190"}, "consent": {"on"}}, false, 422, []string{"Tick the box"}},
		{"phone holding NUL", url.Values{"phone": {"+1415555\x000190"}, "consent": {"yes"}}, false, 422, []string{"Enter a valid mobile phone number"}},
		{"phone that is not UTF-8", url.Values{"phone": {"+1415555\xff0190"}, "consent": {"yes"}}, false, 422, []string{"Enter a valid mobile phone number"}},
		{"consent holding NUL", url.Values{"phone": {"+14155550190"}, "consent": {"yes\x00"}}, false, 422, []string{"Tick the box"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			browser := b
			if tt.fresh {
				browser = env.Browser()
				browser.CSRF = b.CSRF
			}
			res := browser.Submit(t, live.Path(), tt.form)
			if res.Status != tt.status {
				t.Fatalf("POST = %d %s, want %d", res.Status, res.Body, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(res.Body), w) {
					t.Errorf("page lacks %s", w)
				}
			}
		})
	}
	if n := len(consents(t, env, env.Token(t, tenant, viewCodes), "")); n != 0 {
		t.Errorf("refused submissions made %d consents", n)
	}
}

func TestLandingPageWhenContactsAreDown(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	code := env.NewCode(t, tenant, map[string]any{"name": "Desk"})
	b := env.Browser()
	b.Get(t, code.Path())
	env.Contacts.SetDown(true)
	res := b.Submit(t, code.Path(), url.Values{"phone": {"+14155550195"}, "consent": {"yes"}})
	if res.Status != http.StatusServiceUnavailable || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(res.Body), "Nothing was saved") {
		t.Fatalf("POST = %d %s", res.Status, res.Body)
	}
	env.Contacts.SetDown(false)
	if n := len(consents(t, env, env.Token(t, tenant, viewCodes), "")); n != 0 {
		t.Errorf("%d consents after a failed sign-up", n)
	}
	// The suppression API reports the outage as 503, not as a 422.
	token := env.Token(t, tenant, createSuppression)
	env.Contacts.SetDown(true)
	if res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token,
		map[string]any{"contact_phone_id": "01J00000000000000000000000", "reason": "manual"}); res.Status != http.StatusServiceUnavailable ||
		res.ErrorCode() != "service_unavailable" || res.Header.Get("Retry-After") == "" {
		t.Errorf("POST while contacts-svc is down = %d %s, want 503 service_unavailable", res.Status, res.Body)
	}
}

// TestLandingPageRefusesCompressedForms: fasthttp gunzips a multipart form
// with no cap on its inflated size when a handler reads a field, so a form
// post with a Content-Encoding is refused (415) before any field is read,
// even one that would otherwise sign up.
func TestLandingPageRefusesCompressedForms(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	code := env.NewCode(t, tenant, map[string]any{"name": "Counter"})
	b := env.Browser()
	page := b.Get(t, code.Path())
	var cookie string
	for _, c := range (&http.Response{Header: page.Header}).Cookies() {
		cookie = c.Name + "=" + c.Value
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for k, v := range map[string]string{"phone": "+14155550171", "consent": "yes", "_csrf": b.CSRF} {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	if _, err := zw.Write(form.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, env.BaseURL+code.Path(), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Cookie", cookie)
	if res := testenv.Send(t, req); res.Status != http.StatusUnsupportedMediaType || res.ErrorCode() != "bad_request" {
		t.Fatalf("POST = %d %s, want 415 bad_request", res.Status, res.Body)
	}
	if n := len(consents(t, env, env.Token(t, tenant, viewCodes), "")); n != 0 {
		t.Errorf("the refused post made %d consents", n)
	}
}
