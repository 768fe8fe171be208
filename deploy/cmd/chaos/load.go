package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// Kinds of write the load makes.
const (
	kindContactCreate = "contact.create"
	kindContactPatch  = "contact.patch"
	kindReceivable    = "receivable.create"
	kindPay           = "receivable.pay"
	kindPayable       = "payable.create"
	kindPayout        = "payable.payout"
	kindBatch         = "contacts.batch"
)

// write is one recorded write and its answer.
type write struct {
	kind         string
	method, path string
	key          string // Idempotency-Key; empty for hosted-page posts
	body         []byte
	ans          answer
	id           string // the entity written (contact, receivable, payable, batch)
}

// tenant is a fresh tenant of one scenario: its token, webhook endpoint and
// receiver, and the writes made for it.
type tenant struct {
	e        *env
	id       string
	token    string
	rc       *receiver
	endpoint string
	events   []string // the endpoint's subscribed event types

	mu     sync.Mutex
	writes []*write
	ids    []string // contacts created (2xx)
	stuck  []string // batches still queued or processing after the load
}

// subscribed are the event types every scenario's endpoint subscribes to.
var subscribed = []string{events.TypeContactUpdated, events.TypeReceivableCreated, events.TypeReceivablePaid,
	events.TypePayableCreated, events.TypePayableDisbursed, events.TypeContactBatchCompleted}

// newTenant creates a tenant (no practical rate limit), an all-abilities
// token, a webhook receiver and an endpoint subscribed to subscribed.
func (e *env) newTenant(ctx context.Context, name string) (*tenant, error) {
	limit := 1_000_000
	region := "US"
	ten, err := e.admin.CreateTenant(ctx, client.TenantInput{Name: &name, DefaultRegion: &region,
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit}})
	if err != nil {
		return nil, fmt.Errorf("creating tenant %s: %w", name, err)
	}
	tok, err := e.admin.CreateToken(ctx, ten.ID, client.TokenInput{Name: "chaos", Abilities: authz.All()})
	if err != nil {
		return nil, fmt.Errorf("minting a token: %w", err)
	}
	t := &tenant{e: e, id: ten.ID, token: tok.Token, events: subscribed}
	if t.rc, err = newReceiver(e.info.Root + "/tls"); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{"name": "chaos receiver", "url": t.rc.url, "subscribed_events": subscribed})
	a := t.api(ctx, http.MethodPost, "/api/v1/webhook-endpoints", "", body)
	if a.status != http.StatusCreated {
		return nil, fmt.Errorf("creating the webhook endpoint: %d %s %v", a.status, a.body, a.err)
	}
	t.endpoint = a.dataID()
	return t, nil
}

func (t *tenant) api(ctx context.Context, method, path, key string, body []byte) answer {
	return do(ctx, t.e.hc, t.e.info.GatewayURL, t.token, method, path, key, body)
}

// record sends a write and keeps it with its answer.
func (t *tenant) record(ctx context.Context, kind, method, path string, body any, id string) *write {
	raw, _ := json.Marshal(body)
	w := &write{kind: kind, method: method, path: path, key: ids.New(), body: raw, id: id}
	w.ans = t.api(ctx, method, path, w.key, raw)
	if w.ans.ok() && w.id == "" {
		w.id = w.ans.dataID()
	}
	t.keep(w)
	return w
}

func (t *tenant) keep(w *write) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes = append(t.writes, w)
	if w.kind == kindContactCreate && w.ans.ok() {
		t.ids = append(t.ids, w.id)
	}
}

// someContact returns a contact created so far, or "".
func (t *tenant) someContact() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.ids) == 0 {
		return ""
	}
	return t.ids[rand.IntN(len(t.ids))]
}

func (t *tenant) allWrites() []*write {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*write(nil), t.writes...)
}

// load runs the steady mixed load until ctx is done: workers creating and
// patching contacts, creating receivables and paying them on the hosted
// page, creating payables; one 2,000-row contacts batch and one payout
// beside them.
func (t *tenant) load(ctx context.Context, workers int) {
	// Writes in flight when the load stops still get their answer.
	reqCtx := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { t.batch(reqCtx) })
	wg.Go(func() { t.payout(ctx, reqCtx) })
	for range workers {
		wg.Go(func() {
			jar, _ := cookiejar.New(nil)
			browser := &http.Client{Timeout: requestTimeout, Transport: t.e.hc.Transport, Jar: jar,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for ctx.Err() == nil {
				t.step(reqCtx, browser)
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		})
	}
	wg.Wait()
}

// step makes one write of the mix.
func (t *tenant) step(ctx context.Context, browser *http.Client) {
	contact := t.someContact()
	switch n := rand.IntN(100); {
	case n < 40 || contact == "":
		t.record(ctx, kindContactCreate, http.MethodPost, "/api/v1/contacts",
			map[string]any{"first_name": "Ada", "phone": t.e.phone(), "external_id": "chaos-" + ids.New()}, "")
	case n < 65:
		t.record(ctx, kindContactPatch, http.MethodPatch, "/api/v1/contacts/"+contact,
			map[string]any{"last_name": fmt.Sprintf("Patched %d", rand.IntN(1e6))}, contact)
	case n < 90:
		w := t.record(ctx, kindReceivable, http.MethodPost, "/api/v1/receivables",
			map[string]any{"contact_id": contact, "amount": 100 + rand.IntN(10000), "description": "Chaos order"}, "")
		if w.ans.ok() {
			t.pay(ctx, browser, w)
		}
	default:
		t.record(ctx, kindPayable, http.MethodPost, "/api/v1/payables",
			map[string]any{"contact_id": contact, "amount": 100 + rand.IntN(10000), "description": "Chaos payout"}, "")
	}
}

// pay pays a new receivable on its hosted page with the sandbox card that
// succeeds.
func (t *tenant) pay(ctx context.Context, browser *http.Client, rec *write) {
	var it struct {
		PaymentLinkURL *string `json:"payment_link_url"`
	}
	if rec.ans.data(&it) != nil || it.PaymentLinkURL == nil {
		return
	}
	form := url.Values{"card_number": {"4242 4242 4242 4242"}, "exp_month": {"12"}, "exp_year": {"2031"},
		"cvc": {"123"}, "cardholder_name": {"Ada Lovelace"}}
	w := &write{kind: kindPay, method: http.MethodPost, path: *it.PaymentLinkURL, id: rec.id}
	w.ans = submitPage(ctx, browser, *it.PaymentLinkURL, form)
	if w.ans.ok() && !strings.Contains(string(w.ans.body), "Payment received") {
		w.ans.status = 0 // the page answered, but not with a payment
	}
	t.keep(w)
}

// batch submits one 2,000-row contacts batch.
func (t *tenant) batch(ctx context.Context) {
	items := make([]map[string]any, 2000)
	for i := range items {
		items[i] = map[string]any{"external_id": "chaos-batch-" + ids.New(), "first_name": "Batch", "phone": t.e.phone()}
	}
	t.record(ctx, kindBatch, http.MethodPost, "/api/v1/contacts/batch", map[string]any{"items": items}, "")
}

var payoutLink = regexp.MustCompile(`https://\S+/l/p/[0-9A-Z]+\?expires=\d+&signature=[0-9a-f]+`)

// payout creates a contact and a payable, waits for the payout SMS and
// picks a bank account on the hosted page; the answer counts as a write
// when the page says the payout was sent.
func (t *tenant) payout(stop, ctx context.Context) {
	phone := t.e.phone()
	c := t.record(ctx, kindContactCreate, http.MethodPost, "/api/v1/contacts",
		map[string]any{"first_name": "Payee", "phone": phone, "external_id": "chaos-" + ids.New()}, "")
	if !c.ans.ok() {
		return
	}
	p := t.record(ctx, kindPayable, http.MethodPost, "/api/v1/payables",
		map[string]any{"contact_id": c.id, "amount": 4200, "description": "Chaos payout"}, "")
	if !p.ans.ok() {
		return
	}
	var e164 struct {
		Phone string `json:"phone"`
	}
	_ = c.ans.data(&e164)
	var link string
	for link == "" && stop.Err() == nil {
		var msgs struct {
			Data []struct {
				Kind, To, Body string
			} `json:"data"`
		}
		err := t.e.admin.Do(ctx, http.MethodGet, "/admin/v1/tenants/"+t.id+"/messages?to="+url.QueryEscape(e164.Phone), nil, &msgs)
		if err == nil {
			for _, m := range msgs.Data {
				if m.Kind == "payout_link" {
					link = payoutLink.FindString(m.Body)
				}
			}
		}
		if link == "" {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if link == "" {
		return
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Timeout: requestTimeout, Transport: t.e.hc.Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	w := &write{kind: kindPayout, method: http.MethodPost, path: link, id: p.id}
	w.ans = submitPage(ctx, browser, link, url.Values{"destination_type": {"bank_account"},
		"account_holder_name": {"Ada Lovelace"}, "routing_number": {"021000021"}, "account_number": {"000123456789"}})
	if w.ans.ok() && !strings.Contains(string(w.ans.body), "Payout sent") {
		w.ans.status = 0
	}
	t.keep(w)
}

// answers summarises the statuses the load got, e.g. "201×812 503×3 none×2".
func answers(writes []*write) string {
	counts := map[string]int{}
	for _, w := range writes {
		k := fmt.Sprint(w.ans.status)
		if w.ans.status == 0 {
			k = "none"
		} else if code := w.ans.errorCode(); code != "" {
			k += " " + code
		}
		counts[k]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
