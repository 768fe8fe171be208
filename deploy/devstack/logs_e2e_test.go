package devstack

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestLogsCarryNoSecrets runs the stack with every service's and the
// gateway's log at debug level into one buffer, sends phone numbers in every
// notation (bodies, paths, queries, failing requests included), API tokens
// (valid, revoked, garbage), a webhook endpoint's signing secrets (create and
// rotate) and card numbers on the hosted payment page, then scans the logs:
// none of them may appear, whatever the notation.
func TestLogsCarryNoSecrets(t *testing.T) {
	// The services' and the gateway's JSON logs, apart from the devstack's
	// own output (whose banner shows the demo token to the developer).
	serviceLogs := newLogBuffer(t)
	st := startStackWith(t, tempRoot(t), func(o *Options) {
		o.ServiceLog, o.LogLevel = serviceLogs, slog.LevelDebug
	})
	x := newTransactionsE2E(t, st.info)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			x.hc.CloseIdleConnections()
			x.browser.CloseIdleConnections()
			st.stop(t)
		}
	}
	defer stop()

	// What must not be in the logs: a name for the report, and a regular
	// expression.
	type leak struct{ what, re string }
	var leaks []leak
	for _, n := range []string{"4153546544", "4155854147", "4153518446", "4155550177"} {
		leaks = append(leaks, leak{"the phone number " + n, digitsPattern(n)})
	}
	tok := x.token
	call := func(method, path, token, body string, header map[string]string) response {
		t.Helper()
		return x.call(t, method, path, token, body, header)
	}

	t.Run("phones", func(t *testing.T) {
		created := x.contactOf(t, call(http.MethodPost, "/api/v1/contacts", tok,
			`{"first_name":"Ada","phone":"(415) 354-6544"}`, nil), http.StatusCreated)
		x.expectError(t, call(http.MethodPost, "/api/v1/contacts", tok,
			`{"first_name":"Ada","phone":"+1 415 354 6544"}`, nil), http.StatusUnprocessableEntity, "validation_failed")
		x.expectError(t, call(http.MethodPost, "/api/v1/contacts", tok,
			`{"first_name":1,"phone":"+1 415 585 4147"}`, nil), http.StatusUnprocessableEntity, "validation_failed")
		x.expectError(t, call(http.MethodPost, "/api/v1/contacts", tok,
			`{"first_name":"Ada","phone":"415.351.8446"`, nil), http.StatusBadRequest, "bad_request")
		refused(t, call(http.MethodPatch, "/api/v1/contacts/"+created.ID, tok, `{"phone":"415-585-4147","nope":true}`, nil))
		for _, q := range []string{"%28415%29%20354-6544", "+1+415+585+4147", "%2B1%20415%20585%204147",
			"415.351.8446", "%2B14153518446", "4155854147"} {
			x.expectStatus(t, call(http.MethodGet, "/api/v1/contacts?phone="+q, tok, "", nil), http.StatusOK)
			x.expectError(t, call(http.MethodGet, "/api/v1/contacts?phone="+q+"&per_page=0", tok, "", nil),
				http.StatusUnprocessableEntity, "validation_failed")
		}
		refused(t, call(http.MethodDelete, "/api/v1/suppression-list/%2B14153518446?channel=sms", tok, "", nil))
		refused(t, call(http.MethodDelete, "/api/v1/suppression-list/(415)%20585-4147?channel=pigeon", tok, "", nil))
		x.expectError(t, call(http.MethodGet, "/api/v1/contacts/+14155854147", tok, "", nil), http.StatusNotFound, "resource_not_found")
		x.expectError(t, call(http.MethodGet, "/api/v1/nope/415.351.8446", tok, "", nil), http.StatusNotFound, "route_not_found")
		x.expectError(t, call(http.MethodGet, "/api/v1/contacts?phone=4153518446", "", "", nil), http.StatusUnauthorized, "unauthenticated")
		x.expectError(t, call("PROPFIND", "/api/v1/contacts?phone=%2B14155854147", tok, "", nil),
			http.StatusMethodNotAllowed, "method_not_allowed")
		refused(t, call(http.MethodPost, "/api/v1/receivables", tok,
			`{"contact":{"external_id":"nobody"},"amount":500,"description":"call (415) 555-0177"}`, nil))
	})

	t.Run("tokens", func(t *testing.T) {
		minted := x.mint(t, x.info.DemoTenantID, "logs e2e")
		x.expectStatus(t, x.get(t, "/api/v1/openapi.json", minted.Token), http.StatusOK)
		if err := x.admin.RevokeToken(context.Background(), x.info.DemoTenantID, minted.ID); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); x.get(t, "/api/v1/contacts", minted.Token).status != http.StatusUnauthorized; {
			if time.Now().After(deadline) {
				t.Fatal("the revoked token still works after 10 s")
			}
			time.Sleep(200 * time.Millisecond)
		}
		garbage := "pl_987654|GarbageGarbageGarbageGarbageGarbageGarbage123456"
		x.expectError(t, x.get(t, "/api/v1/contacts", garbage), http.StatusUnauthorized, "unauthenticated")
		x.expectError(t, x.do(t, http.MethodGet, "/api/v1/contacts", "", map[string]string{
			"Authorization": "Basic SGVsbG9TZWNyZXRQYXNzd29yZDEyMw=="}), http.StatusUnauthorized, "unauthenticated")
		for name, secret := range map[string]string{"the demo token": tok, "the revoked token": minted.Token,
			"a garbage token": garbage, "a Basic credential": "SGVsbG9TZWNyZXRQYXNzd29yZDEyMw"} {
			if _, s, ok := strings.Cut(secret, "|"); ok {
				secret = s
			}
			leaks = append(leaks, leak{name + "'s secret", regexp.QuoteMeta(secret)})
		}
	})

	t.Run("webhook secrets", func(t *testing.T) {
		rc := newWHReceiver(t, filepath.Join(st.info.Root, "tls"))
		var ep struct {
			Data struct {
				ID            string `json:"id"`
				SigningSecret string `json:"signing_secret"`
			} `json:"data"`
		}
		r := call(http.MethodPost, "/api/v1/webhook-endpoints", tok,
			fmt.Sprintf(`{"name":"logs","url":%q,"subscribed_events":["contact.*"]}`, rc.url), nil)
		x.expectStatus(t, r, http.StatusCreated)
		whDecode(t, r.body, &ep)
		first := ep.Data.SigningSecret
		r = call(http.MethodPost, "/api/v1/webhook-endpoints/"+ep.Data.ID+"/rotate-secret", tok, "{}", nil)
		x.expectStatus(t, r, http.StatusOK)
		whDecode(t, r.body, &ep)
		if first == "" || ep.Data.SigningSecret == "" || first == ep.Data.SigningSecret {
			t.Fatalf("secrets %q then %q: want two different ones", first, ep.Data.SigningSecret)
		}
		// A delivery signed with both.
		x.contactOf(t, call(http.MethodPost, "/api/v1/contacts", tok, `{"first_name":"Bea","phone":"+14155550177"}`, nil), http.StatusCreated)
		rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.created" })
		leaks = append(leaks, leak{"the first webhook secret", regexp.QuoteMeta(strings.TrimPrefix(first, "whsec_"))},
			leak{"the rotated webhook secret", regexp.QuoteMeta(strings.TrimPrefix(ep.Data.SigningSecret, "whsec_"))})
	})

	t.Run("cards", func(t *testing.T) {
		it, _, _ := x.newItem(t, "receivables")
		x.submit(t, *it.PaymentLinkURL, card("4000 0000 0000 0002"), "Your card was declined. Try another card.")
		x.submit(t, *it.PaymentLinkURL, card("4242 4242 4242 4242"), "Payment received")
		leaks = append(leaks, leak{"the decline card", digitsPattern("4000000000000002")},
			leak{"the paying card", digitsPattern("4242424242424242")})
	})

	// Asynchronous work (SMS, deliveries) logs after the answers: stop the
	// stack so that every line is written.
	stop()
	logs := serviceLogs.String()
	// The scan must see the requests: the access lines of the gateway and
	// the services name their route patterns (never the path).
	for _, want := range []string{`"route":"/api/v1/contacts","status":422`, `"route":"unmatched","status":404`,
		`"route":"/api/v1/suppression-list/`, `"msg":"request","service":"contacts-svc"`} {
		if !strings.Contains(logs, want) {
			t.Fatalf("the logs lack %s: the scan would prove nothing", want)
		}
	}
	for _, l := range leaks {
		if loc := regexp.MustCompile(l.re).FindStringIndex(logs); loc != nil {
			start, end := max(loc[0]-200, 0), min(loc[1]+100, len(logs))
			t.Errorf("the logs carry %s:\n...%s...", l.what, logs[start:end])
		}
	}
}

// refused checks that a request failed on the client's side, with the
// envelope.
func refused(t *testing.T, r response) {
	t.Helper()
	if r.status < 400 || r.status >= 500 || !strings.Contains(string(r.body), `"request_id"`) {
		t.Errorf("status %d %s: want a 4xx envelope", r.status, r.body)
	}
}

// digitsPattern matches the digits of n however they are written: any
// punctuation, percent escapes or JSON escapes between them, a digit itself
// percent-encoded.
func digitsPattern(n string) string {
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if i > 0 {
			b.WriteString(`(?:[^0-9A-Za-z*%\\]|%[0-9A-Fa-f]{2}|\\u00[0-9a-fA-F]{2}|\\.){0,6}`)
		}
		fmt.Fprintf(&b, `(?:%c|%%3%c)`, n[i], n[i])
	}
	return b.String()
}
