package devstack

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	twilio "github.com/twilio/twilio-go/client"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

// TestOptInEndToEnd drives optin-svc through the real gateway over HTTPS
// (and its operator routes through the admin listener), on one devstack:
// the suppression list, the opt_in flag gate, phone records and contacts
// resolved through the real contacts-svc, a double opt-in from the
// landing page to the YES reply, a STOP reply, a receivable to the number
// that texted STOP, and the gateway's per-IP limit on inbound SMS.
func TestOptInEndToEnd(t *testing.T) {
	st := startStack(t, tempRoot(t))
	var o *optinE2E
	defer func() {
		if o != nil {
			o.hc.CloseIdleConnections()
		}
		st.stop(t)
	}()
	o = &optinE2E{contactsE2E: newContactsE2E(t, st.info)}

	t.Run("suppression list", o.suppression)
	t.Run("opt_in flag off", o.flagOff)
	var stopped, contactID string
	t.Run("double opt-in and STOP", func(t *testing.T) { stopped, contactID = o.doubleOptIn(t) })
	t.Run("receivable to a number that texted STOP", func(t *testing.T) {
		if stopped == "" {
			t.Fatal("the STOP subtest failed before a number texted STOP; nothing to check here")
		}
		o.stoppedReceivable(t, stopped, contactID)
	})
	t.Run("contacts of opt-ins are contacts-svc's", o.contactsOfOptIns)
	t.Run("inbound SMS limit per IP", o.inboundLimit) // last: it spends the IP's allowance
}

// optinE2E calls optin-svc through the gateway.
type optinE2E struct {
	*contactsE2E
}

// inboundPath is Twilio's inbound message webhook on the gateway.
const inboundPath = "/webhooks/sms/inbound"

// wireSuppression is a suppression list row.
type wireSuppression struct {
	ID             string  `json:"id"`
	PhoneLast4     string  `json:"phone_last4"`
	ContactPhoneID *string `json:"contact_phone_id"`
	Reason         string  `json:"reason"`
	Channel        string  `json:"channel"`
	Source         string  `json:"source"`
}

// wireConsent is an opt-in (consent) row.
type wireConsent struct {
	ID          string  `json:"id"`
	ContactID   string  `json:"contact_id"`
	OptInCodeID *string `json:"opt_in_code_id"`
	Status      string  `json:"status"`
}

// decodeData checks the status and decodes {"data": ...} into dst.
func (o *optinE2E) decodeData(t *testing.T, r response, status int, dst any) {
	t.Helper()
	o.expectStatus(t, r, status)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || len(env.Data) == 0 {
		t.Fatalf("body %s: want {\"data\": ...} (%v)", r.body, err)
	}
	if err := json.Unmarshal(env.Data, dst); err != nil {
		t.Fatalf("data %s: %v", env.Data, err)
	}
}

// readStatus is the opt_in_status of the contact's single read.
func (o *optinE2E) readStatus(t *testing.T, contactID string) string {
	t.Helper()
	r := o.call(t, http.MethodGet, "/api/v1/contacts/"+contactID, o.token, "", nil)
	w := o.contactOf(t, r, http.StatusOK)
	if !w.has("opt_in_status") {
		t.Fatalf("single read lacks opt_in_status: %s", r.body)
	}
	return w.OptInStatus
}

// awaitStatus reads the contact until its opt_in_status is want. The single
// read keeps optin-svc's answer for a moment (contacts-svc's opt-in cache):
// a change shows once optin-svc's event evicts it or its TTL passes.
func (o *optinE2E) awaitStatus(t *testing.T, contactID, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second) // a bound on the event's delivery, not a latency check
	for got := o.readStatus(t, contactID); got != want; got = o.readStatus(t, contactID) {
		if time.Now().After(deadline) {
			t.Fatalf("opt_in_status %q, want %s", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (o *optinE2E) suppressions(t *testing.T, query string) (response, []wireSuppression) {
	t.Helper()
	r := o.call(t, http.MethodGet, "/api/v1/suppression-list?"+query, o.token, "", nil)
	var rows []wireSuppression
	o.decodeData(t, r, http.StatusOK, &rows)
	var meta struct {
		Meta *struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(r.body, &meta); err != nil || meta.Meta == nil {
		t.Errorf("suppression list is not a collection (no meta): %s", r.body)
	}
	return r, rows
}

// suppression: add by contact phone id (201, then 200), list with last
// four digits only, a bad channel, the contact's status, and removal.
func (o *optinE2E) suppression(t *testing.T) {
	_, e164 := o.phone()
	contact := o.create(t, o.token, fmt.Sprintf(`{"first_name":"Sam","phone":%q}`, e164))
	if got := o.readStatus(t, contact.ID); got != "none" {
		t.Errorf("opt_in_status of a new contact %q, want none", got)
	}
	body := fmt.Sprintf(`{"contact_phone_id":%q,"reason":"manual","channel":"sms"}`, contact.PhoneID)
	var made, again wireSuppression
	o.decodeData(t, o.call(t, http.MethodPost, "/api/v1/suppression-list", o.token, body, nil), http.StatusCreated, &made)
	o.decodeData(t, o.call(t, http.MethodPost, "/api/v1/suppression-list", o.token, body, nil), http.StatusOK, &again)
	if made.ID == "" || again.ID != made.ID || made.Source != "api" || made.Reason != "manual" || made.Channel != "sms" {
		t.Errorf("created %+v, repeated %+v: want one entry (source api, manual, sms)", made, again)
	}
	r, rows := o.suppressions(t, "channel=sms")
	if len(rows) != 1 || rows[0].ID != made.ID || rows[0].PhoneLast4 != e164[len(e164)-4:] {
		t.Errorf("list rows %+v, want the entry with phone_last4 %s", rows, e164[len(e164)-4:])
	}
	if strings.Contains(string(r.body), e164) || strings.Contains(string(r.body), e164[1:]) {
		t.Errorf("the list shows the full number: %s", r.body)
	}
	o.expectDetail(t, o.call(t, http.MethodGet, "/api/v1/suppression-list?channel=fax", o.token, "", nil), "channel")
	o.awaitStatus(t, contact.ID, "opted_out")
	// The number URL-encoded as the spec has it (%2B...); the 404 below
	// sends the '+' as it is.
	del := o.call(t, http.MethodDelete, "/api/v1/suppression-list/%2B"+e164[1:]+"?channel=sms", o.token, "", nil)
	o.expectStatus(t, del, http.StatusNoContent)
	o.awaitStatus(t, contact.ID, "none")
	o.expectError(t, o.call(t, http.MethodDelete, "/api/v1/suppression-list/"+url.PathEscape(e164)+"?channel=sms", o.token, "", nil),
		http.StatusNotFound, "resource_not_found")
}

// flagOff: a tenant without the opt_in flag finds no opt-in routes, even
// with the ability.
func (o *optinE2E) flagOff(t *testing.T) {
	ctx := context.Background()
	name, off, limit := "E2E opt-in off", false, noRateLimit
	ten, err := o.admin.CreateTenant(ctx, client.TenantInput{
		Name: &name, Flags: &client.FlagsInput{OptIn: &off}, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	})
	if err != nil {
		t.Fatalf("creating a tenant: %v", err)
	}
	tok, err := o.admin.CreateToken(ctx, ten.ID, client.TokenInput{Name: "e2e opt-in off", Abilities: []string{"api:view-any-opt-in-code"}})
	if err != nil {
		t.Fatalf("minting a token: %v", err)
	}
	for _, p := range []string{"/api/v1/opt-in-codes", "/api/v1/opt-ins"} {
		t.Run(p, func(t *testing.T) {
			o.expectError(t, o.call(t, http.MethodGet, p, tok.Token, "", nil), http.StatusNotFound, "route_not_found")
		})
	}
}

// adminCall makes one request on the admin listener with the admin token.
func (o *optinE2E) adminCall(t *testing.T, method, path, body string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, o.info.AdminURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+o.info.AdminToken)
	return o.roundTrip(t, o.hc, req)
}

func (o *optinE2E) roundTrip(t *testing.T, hc *http.Client, req *http.Request) response {
	t.Helper()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// doubleOptIn: a double opt-in code, the landing page, a pending consent
// and its confirmation SMS, the YES reply, a forged reply, then STOP. It
// returns the number that texted STOP and its contact.
func (o *optinE2E) doubleOptIn(t *testing.T) (e164, contactID string) {
	var code struct {
		ID          string `json:"id"`
		URL         string `json:"url"`
		DoubleOptIn bool   `json:"double_opt_in"`
		IsLive      bool   `json:"is_live"`
	}
	body := fmt.Sprintf(`{"name":"E2E double %s","double_opt_in":true,"is_live":true}`, ids.New())
	o.decodeData(t, o.adminCall(t, http.MethodPost, "/admin/v1/tenants/"+o.info.DemoTenantID+"/opt-in-codes", body), http.StatusCreated, &code)
	prefix := o.info.GatewayURL + "/l/o/"
	if !strings.HasPrefix(code.URL, prefix) || !code.DoubleOptIn || !code.IsLive {
		t.Fatalf("code %+v: want a live double opt-in code at %s<code>", code, prefix)
	}
	_, e164 = o.phone()
	o.submitLanding(t, strings.TrimPrefix(code.URL, o.info.GatewayURL), e164)

	pending := o.consentsOf(t, code.ID)
	if len(pending) != 1 || pending[0].Status != "pending" {
		t.Fatalf("opt-ins of the code after the form %+v, want one pending", pending)
	}
	o.awaitConfirmationSMS(t, e164)

	o.inbound(t, e164, "YES", "", http.StatusOK)
	if got := o.consentsOf(t, code.ID); len(got) != 1 || got[0].ID != pending[0].ID || got[0].Status != "confirmed" {
		t.Fatalf("opt-ins after YES %+v, want the consent confirmed", got)
	}
	o.contactShowsConsent(t, pending[0].ContactID, pending[0].ID, code.ID)
	r := o.inbound(t, e164, "STOP", "bm90IGEgc2lnbmF0dXJl", http.StatusForbidden)
	o.expectError(t, r, http.StatusForbidden, "invalid_signature")
	if got := o.consentsOf(t, code.ID); len(got) != 1 || got[0].Status != "confirmed" {
		t.Fatalf("a forged STOP changed the consent: %+v", got)
	}
	o.stop(t, e164, code.ID, pending[0].ContactID)
	return e164, pending[0].ContactID
}

// contactShowsConsent: the contact's single read (contacts-svc, which asks
// optin-svc) shows opt_in_status opted_in and the confirmed consent.
func (o *optinE2E) contactShowsConsent(t *testing.T, contactID, consentID, codeID string) {
	t.Helper()
	o.awaitStatus(t, contactID, "opted_in")
	r := o.call(t, http.MethodGet, "/api/v1/contacts/"+contactID, o.token, "", nil)
	w := o.contactOf(t, r, http.StatusOK)
	var consents []wireConsent
	if err := json.Unmarshal(w.Consents, &consents); err != nil {
		t.Fatalf("consents of the contact read %s: %v", w.Consents, err)
	}
	if w.OptInStatus != "opted_in" || len(consents) != 1 || consents[0].ID != consentID ||
		consents[0].Status != "confirmed" || consents[0].OptInCodeID == nil || *consents[0].OptInCodeID != codeID {
		t.Fatalf("contact read after YES: opt_in_status %q, consents %s; want opted_in with consent %s (confirmed, code %s)",
			w.OptInStatus, w.Consents, consentID, codeID)
	}
}

// stop: the STOP reply revokes the consent, suppresses the number with
// source inbound_stop (which the API may not remove), and the contact reads
// opted_out.
func (o *optinE2E) stop(t *testing.T, e164, codeID, contactID string) {
	o.inbound(t, e164, "STOP", "", http.StatusOK)
	if got := o.consentsOf(t, codeID); len(got) != 1 || got[0].Status != "revoked" {
		t.Fatalf("opt-ins after STOP %+v, want the consent revoked", got)
	}
	_, rows := o.suppressions(t, "")
	var entry *wireSuppression
	for i := range rows {
		if rows[i].PhoneLast4 == e164[len(e164)-4:] {
			entry = &rows[i]
		}
	}
	if entry == nil || entry.Source != "inbound_stop" || entry.Reason != "manual" || entry.Channel != "sms" {
		t.Fatalf("suppression list after STOP %+v, want an inbound_stop entry ending %s", rows, e164[len(e164)-4:])
	}
	found := o.list(t, o.token, "phone="+url.QueryEscape(e164))
	if len(found.Data) != 1 || found.Data[0].ID != contactID {
		t.Fatalf("contacts with phone %s: %v, want the consent's contact %s", e164[len(e164)-4:], found.ids(), contactID)
	}
	o.awaitStatus(t, contactID, "opted_out")
	o.expectError(t, o.call(t, http.MethodDelete, "/api/v1/suppression-list/"+url.PathEscape(e164)+"?channel=sms", o.token, "", nil),
		http.StatusUnprocessableEntity, "validation_failed")
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// submitLanding opens the landing page and posts its form with consent,
// keeping the form token cookie.
func (o *optinE2E) submitLanding(t *testing.T, path, e164 string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Timeout: o.hc.Timeout, Transport: o.hc.Transport, Jar: jar}
	req, err := http.NewRequest(http.MethodGet, o.info.GatewayURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := o.roundTrip(t, browser, req)
	o.expectStatus(t, page, http.StatusOK)
	html := string(page.body)
	if !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		t.Errorf("landing page Content-Type %q, want text/html", page.header.Get("Content-Type"))
	}
	for _, field := range []string{`name="phone"`, `name="consent"`, `name="_csrf"`} {
		if !strings.Contains(html, field) {
			t.Errorf("landing page lacks %s", field)
		}
	}
	m := csrfField.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no _csrf value on the landing page:\n%s", html)
	}
	form := url.Values{"phone": {e164}, "consent": {"yes"}, "_csrf": {m[1]}}
	req, err = http.NewRequest(http.MethodPost, o.info.GatewayURL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	done := o.roundTrip(t, browser, req)
	o.expectStatus(t, done, http.StatusOK)
	if !strings.Contains(string(done.body), "reply YES to confirm") {
		t.Errorf("the success page does not ask for the YES reply:\n%s", done.body)
	}
}

// consentsOf lists the opt-ins of one code.
func (o *optinE2E) consentsOf(t *testing.T, codeID string) []wireConsent {
	t.Helper()
	var rows []wireConsent
	r := o.call(t, http.MethodGet, "/api/v1/opt-ins?opt_in_code_id="+url.QueryEscape(codeID), o.token, "", nil)
	o.decodeData(t, r, http.StatusOK, &rows)
	return rows
}

// awaitConfirmationSMS polls the operator's message list of the demo
// tenant for the confirmation SMS to e164 (the sink provider's outbox).
func (o *optinE2E) awaitConfirmationSMS(t *testing.T, e164 string) {
	t.Helper()
	path := "/admin/v1/tenants/" + o.info.DemoTenantID + "/messages?to=" + url.QueryEscape(e164)
	var last response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		last = o.adminCall(t, http.MethodGet, path, "")
		var msgs []struct {
			Kind   string  `json:"kind"`
			To     string  `json:"to"`
			From   *string `json:"from"`
			Body   string  `json:"body"`
			Status string  `json:"status"`
		}
		o.decodeData(t, last, http.StatusOK, &msgs)
		for _, m := range msgs {
			if m.Kind == "opt_in_confirmation" && m.To == e164 && (m.Status == "sent" || m.Status == "delivered") {
				if m.From == nil || *m.From != devSenderNumber || !strings.Contains(m.Body, "YES") {
					t.Errorf("confirmation SMS %+v: want from %s and a text asking for YES", m, devSenderNumber)
				}
				return
			}
		}
	}
	t.Fatalf("no sent confirmation SMS to the number after 10 s; last list %s", last.body)
}

// inbound posts an SMS from e164 to the devstack's sender as Twilio would:
// signed over the public URL unless sig is given. It checks the status and,
// for 200, a TwiML answer.
func (o *optinE2E) inbound(t *testing.T, e164, text, sig string, status int) response {
	t.Helper()
	return o.inboundTo(t, e164, devSenderNumber, text, sig, status)
}

// inboundTo is inbound to the sender number to.
func (o *optinE2E) inboundTo(t *testing.T, e164, to, text, sig string, status int) response {
	t.Helper()
	form := url.Values{"From": {e164}, "To": {to}, "Body": {text},
		"MessageSid": {"SM" + strings.ToLower(ids.New())}, "AccountSid": {"AC00000000000000000000000000000000"}}
	full := o.info.GatewayURL + inboundPath
	if sig == "" {
		sig = twilioSignature(o.info.SMSAuthToken, full, form)
		flat := map[string]string{}
		for k, v := range form {
			flat[k] = v[0]
		}
		if rv := twilio.NewRequestValidator(o.info.SMSAuthToken); !rv.Validate(full, flat, sig) {
			t.Fatal("twilio-go's RequestValidator refuses the test's own signature")
		}
	}
	req, err := http.NewRequest(http.MethodPost, full, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", sig)
	r := o.roundTrip(t, o.hc, req)
	o.expectStatus(t, r, status)
	if status == http.StatusOK {
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/xml") || !strings.Contains(string(r.body), "<Response") {
			t.Errorf("answer to %s: %s %s, want TwiML", text, ct, r.body)
		}
	}
	return r
}

// twilioSignature is Twilio's request signature: base64 of HMAC-SHA1 keyed
// with the auth token over the URL followed by each POST parameter, sorted
// by name, as name+value.
func twilioSignature(authToken, fullURL string, form url.Values) string {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(fullURL)
	for _, k := range keys {
		b.WriteString(k + form.Get(k))
	}
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(b.String()))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// contactsOfOptIns: optin-svc resolves a contact_phone_id through
// contacts-svc's phone records (a contact id is not one), and the landing
// page and an inbound YES find or create the number's contact in
// contacts-svc with service tokens: a new number gets one contact, a known
// number keeps its contact. A tenant of its own with its own sender
// number, so a YES from a number it never wrote to is the tenant's.
func (o *optinE2E) contactsOfOptIns(t *testing.T) {
	ctx := context.Background()
	name, number, on, limit := "E2E contacts "+ids.New(), "+15005550077", true, noRateLimit
	tenant, err := o.admin.CreateTenant(ctx, client.TenantInput{Name: &name, SMSNumber: &number,
		Flags: &client.FlagsInput{OptIn: &on}, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit}})
	if err != nil {
		t.Fatal(err)
	}
	minted, err := o.admin.CreateToken(ctx, tenant.ID, client.TokenInput{Name: "e2e opt-ins", Abilities: authz.All()})
	if err != nil {
		t.Fatal(err)
	}
	token := minted.Token

	_, adaE164 := o.phone()
	ada := o.create(t, token, fmt.Sprintf(`{"first_name":"Ada","phone":%q}`, adaE164))
	o.expectDetail(t, o.call(t, http.MethodPost, "/api/v1/suppression-list", token,
		fmt.Sprintf(`{"contact_phone_id":%q,"reason":"manual","channel":"sms"}`, ada.ID), nil), "contact_phone_id")

	var code struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	body := fmt.Sprintf(`{"name":"E2E contacts %s","double_opt_in":true,"is_live":true}`, ids.New())
	o.decodeData(t, o.adminCall(t, http.MethodPost, "/admin/v1/tenants/"+tenant.ID+"/opt-in-codes", body), http.StatusCreated, &code)
	national, e164 := o.phone()
	o.submitLanding(t, strings.TrimPrefix(code.URL, o.info.GatewayURL), national)
	var pending []wireConsent
	o.decodeData(t, o.call(t, http.MethodGet, "/api/v1/opt-ins?opt_in_code_id="+url.QueryEscape(code.ID), token, "", nil), http.StatusOK, &pending)
	found := o.list(t, token, "phone="+url.QueryEscape(e164))
	if len(pending) != 1 || len(found.Data) != 1 || found.Data[0].ID != pending[0].ContactID {
		t.Fatalf("landing page with %s: consents %+v, contacts of %s %v; want one consent of the one new contact",
			national, pending, e164, found.ids())
	}

	o.inboundTo(t, adaE164, number, "YES", "", http.StatusOK)
	var confirmed []wireConsent
	o.decodeData(t, o.call(t, http.MethodGet, "/api/v1/opt-ins?status=confirmed&per_page=100", token, "", nil), http.StatusOK, &confirmed)
	var adas int
	for _, c := range confirmed {
		if c.ContactID == ada.ID {
			adas++
		}
	}
	if got := o.list(t, token, "phone="+url.QueryEscape(adaE164)); adas != 1 || len(got.Data) != 1 || got.Data[0].ID != ada.ID {
		t.Errorf("YES from Ada's number: %d confirmed consents of Ada %s (%+v), contacts of the number %v; want one, and Ada found, not created",
			adas, ada.ID, confirmed, got.ids())
	}
}
