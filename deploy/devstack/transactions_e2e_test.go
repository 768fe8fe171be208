package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// TestTransactionsEndToEnd drives transactions-svc through the real gateway
// over HTTPS, with the demo tenant: a receivable paid on its hosted page
// opened from the SMS the sink provider stored, a payout chosen on its
// page, the lifecycle refusals, signed-link refusals, a campaign
// assignment, and the events on the broker.
func TestTransactionsEndToEnd(t *testing.T) {
	st := startStack(t, tempRoot(t))
	var x *transactionsE2E
	defer func() {
		if x != nil {
			x.hc.CloseIdleConnections()
			x.browser.CloseIdleConnections()
		}
		st.stop(t)
	}()
	x = newTransactionsE2E(t, st.info)

	var paid, cards, payout, delayed string
	t.Run("receivable paid on its hosted page", func(t *testing.T) { paid = x.payReceivable(t) })
	t.Run("pay and payout pages in Chromium", x.payInChromium)
	t.Run("hosted pages: the tenant's name and the per-link limit", x.hostedPages)
	t.Run("each sandbox card", func(t *testing.T) { cards = x.sandboxCards(t) })
	t.Run("payout chosen on its hosted page", func(t *testing.T) { payout = x.payout(t) })
	t.Run("payout identity and disbursement failures", func(t *testing.T) { delayed = x.payoutFailures(t) })
	t.Run("concurrent cancels and mark-paids", x.raceCancelAndMarkPaid)
	t.Run("suppressed phone", x.suppressedReceivable)
	t.Run("lifecycle refusals", func(t *testing.T) { x.refusals(t, paid) })
	t.Run("signed links", x.signedLinks)
	t.Run("campaign assignment", x.campaignAssignment)
	t.Run("events on the broker", func(t *testing.T) {
		x.events(t, map[string][]string{
			paid:    {"receivable.created", "receivable.updated", "receivable.paid"},
			cards:   {"receivable.created", "receivable.payment_failed", "receivable.updated", "receivable.paid"},
			payout:  {"payable.created", "payable.destination_selected", "payable.updated", "payable.disbursed"},
			delayed: {"payable.created", "payable.destination_selected", "payable.disbursement_failed", "payable.disbursed"},
		})
	})
}

// transactionsE2E calls transactions-svc through the gateway; browser is a
// second client with a cookie jar, as a customer's browser on the pages.
type transactionsE2E struct {
	*contactsE2E
	browser *http.Client
}

func newTransactionsE2E(t *testing.T, info Info) *transactionsE2E {
	t.Helper()
	x := &transactionsE2E{contactsE2E: newContactsE2E(t, info)}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	x.browser = &http.Client{Timeout: 30 * time.Second, Transport: x.hc.Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return x
}

// wireItem is the part of a receivable or payable the test reads.
type wireItem struct {
	ID             string  `json:"id"`
	TransactionID  string  `json:"transaction_id"`
	Status         string  `json:"status"`
	PaymentLinkURL *string `json:"payment_link_url"`
	Destination    *struct {
		Type  string `json:"type"`
		Last4 string `json:"last4"`
	} `json:"destination"`
	LatestMessage *struct {
		Status string `json:"status"`
	} `json:"latest_message"`
}

func (x *transactionsE2E) item(t *testing.T, r response, status int) (wireItem, map[string]json.RawMessage) {
	t.Helper()
	x.expectStatus(t, r, status)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	var it wireItem
	var keys map[string]json.RawMessage
	if json.Unmarshal(r.body, &env) != nil || json.Unmarshal(env.Data, &it) != nil || json.Unmarshal(env.Data, &keys) != nil {
		t.Fatalf("body %s: not {data: item}", r.body)
	}
	return it, keys
}

// newItem creates a contact and a receivable or payable for it.
func (x *transactionsE2E) newItem(t *testing.T, path string) (wireItem, map[string]json.RawMessage, string) {
	t.Helper()
	_, e164 := x.phone()
	contact := x.create(t, x.token, fmt.Sprintf(`{"first_name":"Ada","phone":%q}`, e164))
	r := x.call(t, http.MethodPost, "/api/v1/"+path, x.token,
		fmt.Sprintf(`{"contact_id":%q,"amount":4200,"description":"Order 7"}`, contact.ID), nil)
	it, keys := x.item(t, r, http.StatusCreated)
	return it, keys, e164
}

// awaitSMS polls the sink provider's outbox for a sent SMS of kind to
// e164 and returns its body.
func (x *transactionsE2E) awaitSMS(t *testing.T, e164, kind string) string {
	t.Helper()
	path := "/admin/v1/tenants/" + x.info.DemoTenantID + "/messages?to=" + url.QueryEscape(e164)
	var last response
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		last = (&optinE2E{contactsE2E: x.contactsE2E}).adminCall(t, http.MethodGet, path, "")
		var msgs struct {
			Data []struct {
				Kind, To, Body, Status string
			} `json:"data"`
		}
		if json.Unmarshal(last.body, &msgs) != nil {
			continue
		}
		for _, m := range msgs.Data {
			if m.Kind == kind && m.To == e164 && (m.Status == "sent" || m.Status == "delivered") {
				return m.Body
			}
		}
	}
	t.Fatalf("no sent %s SMS after 20 s; last list %d %s", kind, last.status, last.body)
	return ""
}

// page fetches or posts a hosted page with the browser.
func (x *transactionsE2E) page(t *testing.T, method, link string, form url.Values, header ...string) response {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, link, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := x.browser.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// submit opens the page at link, then posts form with its CSRF token and
// expects the answer to contain want.
func (x *transactionsE2E) submit(t *testing.T, link string, form url.Values, want string) {
	t.Helper()
	r := x.page(t, http.MethodGet, link, nil)
	x.expectStatus(t, r, http.StatusOK)
	m := regexp.MustCompile(`name="_csrf" value="([0-9a-f]+)"`).FindSubmatch(r.body)
	if m == nil {
		t.Fatalf("no form on the page:\n%s", r.body)
	}
	form.Set("_csrf", string(m[1]))
	r = x.page(t, http.MethodPost, link, form)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), want) {
		t.Fatalf("posting the form: %d, want 200 with %q:\n%s", r.status, want, r.body)
	}
}

func (x *transactionsE2E) payReceivable(t *testing.T) string {
	it, _, e164 := x.newItem(t, "receivables")
	if it.Status != "pending" || it.PaymentLinkURL == nil || !strings.HasPrefix(*it.PaymentLinkURL, x.info.GatewayURL+"/l/r/"+it.ID+"?") {
		t.Fatalf("new receivable %+v: want pending with a link on %s", it, x.info.GatewayURL)
	}
	if sms := x.awaitSMS(t, e164, "payment_link"); !strings.Contains(sms, *it.PaymentLinkURL) {
		t.Fatalf("the SMS %q lacks the link", sms)
	}
	form := url.Values{"card_number": {"4242 4242 4242 4242"}, "exp_month": {"12"}, "exp_year": {"2031"},
		"cvc": {"123"}, "cardholder_name": {"Ada Lovelace"}}
	x.submit(t, *it.PaymentLinkURL, form, "Payment received")
	got, _ := x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+it.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "paid" || got.PaymentLinkURL != nil {
		t.Fatalf("after paying: %+v", got)
	}
	// message.* events from optin-svc reach latest_message.
	for deadline := time.Now().Add(20 * time.Second); got.LatestMessage == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("latest_message still null after 20 s")
		}
		got, _ = x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+it.ID, x.token, "", nil), http.StatusOK)
	}
	return it.ID
}

func (x *transactionsE2E) payout(t *testing.T) string {
	it, keys, e164 := x.newItem(t, "payables")
	if _, ok := keys["payment_link_url"]; ok || it.Status != "pending" {
		t.Fatalf("new payable %v: pending, and no link in the API", keys)
	}
	sms := x.awaitSMS(t, e164, "payout_link")
	link := regexp.MustCompile(`https://\S+/l/p/` + it.ID + `\?expires=\d+&signature=[0-9a-f]+`).FindString(sms)
	if !strings.HasPrefix(link, x.info.GatewayURL) {
		t.Fatalf("the SMS %q has no payout link on %s", sms, x.info.GatewayURL)
	}
	form := url.Values{"destination_type": {"bank_account"}, "account_holder_name": {"Ada Lovelace"},
		"routing_number": {"021000021"}, "account_number": {"000123456789"}}
	x.submit(t, link, form, "Payout sent")
	got, _ := x.item(t, x.call(t, http.MethodGet, "/api/v1/payables/"+it.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "disbursed" || got.Destination == nil || got.Destination.Last4 != "6789" {
		t.Fatalf("after the payout: %+v", got)
	}
	return it.ID
}

func (x *transactionsE2E) refusals(t *testing.T, paidID string) {
	base := "/api/v1/receivables/" + paidID
	x.expectError(t, x.call(t, http.MethodPost, base+"/cancel", x.token, "", nil), http.StatusConflict, "already_paid")
	r := x.call(t, http.MethodPost, base+"/mark-paid", x.token, "{}", nil)
	x.expectError(t, r, http.StatusUnprocessableEntity, "invalid_transition")
	if !strings.Contains(string(r.body), `"paid -> paid"`) {
		t.Errorf("message lacks the pair: %s", r.body)
	}
	it, _, _ := x.newItem(t, "receivables")
	x.expectError(t, x.call(t, http.MethodPost, "/api/v1/receivables", x.token, `{"contact_id":"`+ids.New()+`","amount":10.5}`, nil),
		http.StatusUnprocessableEntity, "validation_failed")
	x.expectError(t, x.call(t, http.MethodGet, "/api/v1/receivables/not-a-ulid", x.token, "", nil), http.StatusNotFound, "resource_not_found")
	_, other := x.tenant(t, "Other tx", "US")
	x.expectError(t, x.call(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/cancel", other, "", nil), http.StatusNotFound, "resource_not_found")
	c1, _ := x.item(t, x.call(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/cancel", x.token, "", map[string]string{"Idempotency-Key": "e2e-cancel"}), http.StatusOK)
	r = x.call(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/cancel", x.token, "", map[string]string{"Idempotency-Key": "e2e-cancel"})
	if c1.Status != "cancelled" || r.status != http.StatusOK || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("idempotent cancel: %s then %d %v", c1.Status, r.status, r.header)
	}
}

func (x *transactionsE2E) signedLinks(t *testing.T) {
	it, _, _ := x.newItem(t, "receivables")
	link := *it.PaymentLinkURL
	sig := link[strings.Index(link, "signature=")+len("signature="):]
	flipped := map[bool]string{true: "1", false: "0"}[sig[0] == '0'] + sig[1:]
	r := x.page(t, http.MethodGet, strings.Replace(link, sig, flipped, 1), nil, "Accept: application/json")
	x.expectStatus(t, r, http.StatusUnauthorized)
	if !strings.Contains(string(r.body), `"invalid_signature"`) {
		t.Errorf("tampered link: %s", r.body)
	}
	if r := x.page(t, http.MethodGet, strings.Replace(link, sig, flipped, 1), nil); r.status != http.StatusUnauthorized ||
		!strings.Contains(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("tampered link in a browser: %d %s", r.status, r.header.Get("Content-Type"))
	}
	x.expectStatus(t, x.call(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/revoke-link", x.token, "", nil), http.StatusOK)
	r = x.page(t, http.MethodGet, link, nil, "Accept: application/json")
	x.expectStatus(t, r, http.StatusGone)
	if !strings.Contains(string(r.body), `"link_revoked"`) {
		t.Errorf("revoked link: %s", r.body)
	}
	r = x.page(t, http.MethodPost, link, url.Values{"card_number": {"4242424242424242"}})
	if r.status != http.StatusGone && r.status != 419 {
		t.Errorf("posting to a revoked link without a token: %d", r.status)
	}
}

func (x *transactionsE2E) campaignAssignment(t *testing.T) {
	r := x.call(t, http.MethodPost, "/api/v1/campaigns", x.token, `{"name":"E2E","direction":"payable"}`, nil)
	x.expectStatus(t, r, http.StatusCreated)
	var c struct {
		Data struct{ ID string } `json:"data"`
	}
	_ = json.Unmarshal(r.body, &c)
	it, _, _ := x.newItem(t, "receivables")
	path := "/api/v1/transactions/" + it.TransactionID + "/campaign-assignment"
	body := `{"campaign_id":"` + c.Data.ID + `"}`
	x.expectError(t, x.call(t, http.MethodPost, path, x.token, body, nil), http.StatusUnprocessableEntity, "validation_failed")
	x.call(t, http.MethodPut, "/api/v1/campaigns/"+c.Data.ID, x.token, `{"name":"E2E","direction":"receivable"}`, nil)
	x.expectStatus(t, x.call(t, http.MethodPost, "/api/v1/campaigns/"+c.Data.ID+"/publish", x.token, "", nil), http.StatusOK)
	x.expectStatus(t, x.call(t, http.MethodPost, path, x.token, body, nil), http.StatusOK)
	x.expectError(t, x.call(t, http.MethodPost, path, x.token, body, nil), http.StatusConflict, "already_assigned")
}

// events reads the transactions topic until every item of want has shown
// each of its event types (in the data: the item, its id). Payable events
// never carry the payout link.
func (x *transactionsE2E) events(t *testing.T, want map[string][]string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rd := kafka.NewReader(kafka.ReaderConfig{Brokers: x.info.Brokers, GroupID: "devstack-transactions-e2e-" + ids.New(),
		GroupTopics: []string{events.TopicTransactions}, StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer rd.Close()
	missing := map[string]bool{}
	for id, types := range want {
		if id == "" {
			t.Errorf("an earlier subtest made no item for %v", types)
			continue
		}
		for _, typ := range types {
			missing[id+" "+typ] = true
		}
	}
	for len(missing) > 0 {
		msg, err := rd.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s, still missing %v: %v", events.TopicTransactions, missing, err)
		}
		var env events.Envelope
		var data map[string]json.RawMessage
		if json.Unmarshal(msg.Value, &env) != nil || env.Decode(&data) != nil {
			continue
		}
		var id string
		if json.Unmarshal(data["id"], &id) != nil || want[id] == nil {
			continue
		}
		if _, ok := data["payment_link_url"]; ok && strings.HasPrefix(env.Type, "payable.") {
			t.Errorf("%s of payable %s carries payment_link_url", env.Type, id)
		}
		delete(missing, id+" "+env.Type)
	}
}
