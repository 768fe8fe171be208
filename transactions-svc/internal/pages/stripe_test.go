package pages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
)

const webhookSecret = "whsec_paylane_test"

// stripeFixture is a tenant on the Stripe rail (stripe-mock behind it).
type stripeFixture struct {
	fixture
	webhookURL string
}

// railJSON is GET /payment-rail's data.
type railJSON struct {
	Provider       string  `json:"provider"`
	Mode           *string `json:"mode"`
	AccountID      *string `json:"account_id"`
	SecretKeyLast4 *string `json:"secret_key_last4"`
	WebhookURL     *string `json:"webhook_url"`
}

// stripeItem is the part of a receivable or payable these tests read.
type stripeItem struct {
	ID                string  `json:"id"`
	Status            string  `json:"status"`
	Rail              string  `json:"rail"`
	ProviderReference *string `json:"provider_reference"`
	FailureReason     *string `json:"failure_reason"`
	PaymentMethod     *string `json:"payment_method"`
	Destination       *struct {
		Type string `json:"type"`
	} `json:"destination"`
}

func newStripeFixture(t *testing.T, apiBase string) stripeFixture {
	t.Helper()
	f := newFixture(t)
	f.env.EnableRails(t, apiBase)
	r := f.env.Do(t, http.MethodPut, "/api/v1/payment-rail", f.token,
		`{"provider":"stripe","secret_key":"sk_test_51Paylane4242","webhook_secret":"`+webhookSecret+`","publishable_key":"pk_test_1"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("PUT /payment-rail: %d %s", r.Status, r.Body)
	}
	var o struct{ Data railJSON }
	r.JSON(t, &o)
	if o.Data.WebhookURL == nil {
		t.Fatalf("no webhook_url in %s", r.Body)
	}
	return stripeFixture{fixture: f, webhookURL: f.local(*o.Data.WebhookURL)}
}

func (f stripeFixture) item(t *testing.T, path, id string) stripeItem {
	t.Helper()
	var o struct{ Data stripeItem }
	f.env.Do(t, http.MethodGet, "/api/v1/"+path+"/"+id, f.token, "").JSON(t, &o)
	return o.Data
}

// deliver posts a Stripe event to the rail's webhook URL, signed with
// secret as Stripe signs it.
func (f stripeFixture) deliver(t *testing.T, secret, id, typ string, object map[string]any) int {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2024-06-20",
		"created": time.Now().Unix(), "livemode": false, "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: time.Now()})
	req, _ := http.NewRequest(http.MethodPost, f.webhookURL, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sig.Header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (f stripeFixture) count(t *testing.T, typ string) int {
	t.Helper()
	n := 0
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func TestPaymentRailIsCheckedStoredSealedAndNeverShown(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	r := f.env.Do(t, http.MethodGet, "/api/v1/payment-rail", f.token, "")
	var o struct{ Data railJSON }
	r.JSON(t, &o)
	if o.Data.Provider != "stripe" || o.Data.Mode == nil || *o.Data.Mode != "test" || o.Data.SecretKeyLast4 == nil ||
		*o.Data.SecretKeyLast4 != "4242" || o.Data.AccountID == nil || !strings.HasPrefix(*o.Data.AccountID, "acct_") {
		t.Fatalf("GET /payment-rail = %s", r.Body)
	}
	if strings.Contains(string(r.Body), "sk_test_51Paylane4242") || strings.Contains(string(r.Body), webhookSecret) {
		t.Fatalf("a secret is shown: %s", r.Body)
	}
	var sealed []byte
	conn, err := f.env.Pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, _ := conn.Begin(context.Background())
	defer tx.Rollback(context.Background())
	_, _ = tx.Exec(context.Background(), "SELECT set_config('app.tenant_id', $1, true)", f.tenant)
	if err := tx.QueryRow(context.Background(), "SELECT secret_key_sealed || webhook_secret_sealed FROM payment_rails").Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("sk_test_51Paylane4242")) || bytes.Contains(sealed, []byte(webhookSecret)) {
		t.Fatal("a secret is stored in the clear")
	}

	tests := []struct {
		name, body, field string
	}{
		{"key Stripe refuses", `{"provider":"stripe","secret_key":"sk_live_refused","webhook_secret":"whsec_x"}`, "secret_key"},
		{"not a Stripe key", `{"provider":"stripe","secret_key":"hunter2","webhook_secret":"whsec_x"}`, "secret_key"},
		{"a key no header can carry", `{"provider":"stripe","secret_key":"sk_test_a\nX-Evil: 1","webhook_secret":"whsec_x"}`, "secret_key"},
		{"a webhook secret with spaces", `{"provider":"stripe","secret_key":"sk_test_1","webhook_secret":"whsec_a b"}`, "webhook_secret"},
		{"no webhook secret", `{"provider":"stripe","secret_key":"sk_test_1"}`, "webhook_secret"},
		{"other provider", `{"provider":"paypal","secret_key":"sk_test_1","webhook_secret":"whsec_x"}`, "provider"},
		{"publishable key of the other mode", `{"provider":"stripe","secret_key":"sk_test_1","webhook_secret":"whsec_x","publishable_key":"pk_live_1"}`, "publishable_key"},
	}
	for _, tt := range tests {
		r := f.env.Do(t, http.MethodPut, "/api/v1/payment-rail", f.token, tt.body)
		var e struct {
			Error struct {
				Code    string              `json:"code"`
				Details map[string][]string `json:"details"`
			} `json:"error"`
		}
		r.JSON(t, &e)
		if r.Status != http.StatusUnprocessableEntity || e.Error.Code != "validation_failed" || len(e.Error.Details[tt.field]) == 0 {
			t.Errorf("%s: %d %s, want 422 on %s", tt.name, r.Status, r.Body, tt.field)
		}
		if strings.Contains(string(r.Body), "hunter2") || strings.Contains(string(r.Body), "sk_live_refused") {
			t.Errorf("%s: the key is echoed: %s", tt.name, r.Body)
		}
	}

	if r := f.env.Do(t, http.MethodDelete, "/api/v1/payment-rail", f.token, ""); r.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	f.env.Do(t, http.MethodGet, "/api/v1/payment-rail", f.token, "").JSON(t, &o)
	if o.Data.Provider != "sandbox" || o.Data.Mode != nil {
		t.Fatalf("after DELETE: %+v", o.Data)
	}
	if rec := f.create(t, "receivables"); f.item(t, "receivables", rec.ID).Rail != "sandbox" {
		t.Fatal("a receivable created after DELETE is not on the sandbox rail")
	}
}

func TestReceivableOnStripeIsPaidThroughCheckoutAndItsWebhook(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	rec := f.create(t, "receivables")
	if got := f.item(t, "receivables", rec.ID); got.Rail != "stripe" || got.ProviderReference != nil {
		t.Fatalf("new receivable: %+v", got)
	}
	link := f.link(t, rec)
	a := f.get(t, link)
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "https://checkout.stripe.com/") {
		t.Fatalf("pay page: %d Location %q\n%s", a.status, a.header.Get("Location"), a.body)
	}
	if a.header.Get("Referrer-Policy") != "no-referrer" || a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the hand-over to Checkout may be cached or leak the link: %v", a.header)
	}
	got := f.item(t, "receivables", rec.ID)
	if got.Status != "pending" || got.ProviderReference == nil || !strings.HasPrefix(*got.ProviderReference, "cs_") {
		t.Fatalf("after the checkout opened: %+v", got)
	}
	// The page has no card form; a card posted to it is refused and not read.
	form := card("4242424242424242")
	form.Set("_csrf", "00")
	if a := f.post(t, link, form); a.status != statusCSRF && a.status != http.StatusSeeOther {
		t.Fatalf("card posted to a Stripe receivable: %d\n%s", a.status, a.body)
	}
	if s := f.item(t, "receivables", rec.ID).Status; s != "pending" {
		t.Fatalf("a posted card moved the receivable to %s", s)
	}
	// Back from Checkout, before the webhook: the page says so, and sends
	// nobody to Checkout again.
	expectPage(t, f.get(t, link+"&checkout=return"), http.StatusOK, "Payment submitted")

	paid := map[string]any{"id": "cs_test_1", "object": "checkout.session", "payment_status": "paid", "payment_intent": "pi_123",
		"client_reference_id": rec.ID, "metadata": map[string]any{striperail.MetaReceivable: rec.ID}}
	if code := f.deliver(t, "whsec_forged", "evt_forged", "checkout.session.completed", paid); code != http.StatusUnauthorized {
		t.Fatalf("forged webhook: %d, want 401", code)
	}
	if s := f.item(t, "receivables", rec.ID).Status; s != "pending" {
		t.Fatalf("a forged webhook moved the receivable to %s", s)
	}
	if code := f.deliver(t, webhookSecret, "evt_paid", "checkout.session.completed", paid); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	got = f.item(t, "receivables", rec.ID)
	if got.Status != "paid" || got.ProviderReference == nil || *got.ProviderReference != "pi_123" ||
		got.PaymentMethod == nil || *got.PaymentMethod != "card" {
		t.Fatalf("after checkout.session.completed: %+v", got)
	}
	events := len(f.env.Events(t, f.tenant))
	if f.count(t, "receivable.paid") != 1 {
		t.Fatalf("%d receivable.paid events, want 1", f.count(t, "receivable.paid"))
	}
	// Stripe retries deliveries: the same event again changes nothing.
	if code := f.deliver(t, webhookSecret, "evt_paid", "checkout.session.completed", paid); code != http.StatusOK {
		t.Fatalf("replayed webhook: %d", code)
	}
	if n := len(f.env.Events(t, f.tenant)); n != events {
		t.Fatalf("a replayed webhook wrote %d events", n-events)
	}
	expectPage(t, f.get(t, link), http.StatusOK, "Payment received")
	// Opening the checkout is no answer yet; the webhook's payment is one.
	expectRailCounts(t, f.fixture, "stripe", map[[2]string]float64{{railmetrics.Charge, railmetrics.Succeeded}: 1})
}

func TestStripePaymentFailureFailsTheReceivableWithTheProvidersReason(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	rec := f.create(t, "receivables")
	failed := map[string]any{"id": "pi_9", "object": "payment_intent", "metadata": map[string]any{striperail.MetaReceivable: rec.ID},
		"last_payment_error": map[string]any{"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds"}}
	if code := f.deliver(t, webhookSecret, "evt_failed", "payment_intent.payment_failed", failed); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	got := f.item(t, "receivables", rec.ID)
	if got.Status != "failed" || got.FailureReason == nil || *got.FailureReason != "insufficient_funds" {
		t.Fatalf("after payment_intent.payment_failed: %+v", got)
	}
	if f.count(t, "receivable.payment_failed") != 1 {
		t.Fatal("no receivable.payment_failed event")
	}
	// The payer's refused payment is a decline, not the rail's error.
	expectRailCounts(t, f.fixture, "stripe", map[[2]string]float64{
		{railmetrics.Charge, railmetrics.Declined}: 1,
		{railmetrics.Charge, railmetrics.Error}:    0,
	})
	// retry-payment reopens it: the payer pays on a new checkout.
	if r := f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+rec.ID+"/retry-payment", f.token, "{}"); r.Status != http.StatusOK {
		t.Fatalf("retry-payment: %d %s", r.Status, r.Body)
	}
	if s := f.item(t, "receivables", rec.ID).Status; s != "pending" {
		t.Fatalf("after retry-payment: %s, want pending", s)
	}
	if a := f.get(t, f.link(t, rec)); a.status != http.StatusSeeOther {
		t.Fatalf("pay page after retry: %d", a.status)
	}
}

func TestPayableOnStripeIsPaidAfterOnboardingAndTheSecondSkipsIt(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	pay := f.create(t, "payables")
	link := f.link(t, pay)
	a := f.get(t, link)
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "https://") {
		t.Fatalf("payout page: %d Location %q\n%s", a.status, a.header.Get("Location"), a.body)
	}
	if s := f.item(t, "payables", pay.ID).Status; s != "pending" {
		t.Fatalf("payable %s while the recipient onboards", s)
	}
	account := f.account(t)
	// Stripe reports the recipient's account ready: the payable is paid out.
	ready := map[string]any{"id": account, "object": "account", "payouts_enabled": true}
	if code := f.deliver(t, webhookSecret, "evt_ready", "account.updated", ready); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	got := f.item(t, "payables", pay.ID)
	if got.Status != "disbursed" || got.ProviderReference == nil || !strings.HasPrefix(*got.ProviderReference, "tr_") ||
		got.Destination == nil || got.Destination.Type != "stripe_account" {
		t.Fatalf("after account.updated: %+v", got)
	}
	if f.count(t, "payable.disbursed") != 1 || f.count(t, "payable.destination_selected") != 1 {
		t.Fatal("missing payable.disbursed or payable.destination_selected")
	}
	expectPage(t, f.get(t, link), http.StatusOK, "Payout sent")
	if code := f.deliver(t, webhookSecret, "evt_ready", "account.updated", ready); code != http.StatusOK || f.count(t, "payable.disbursed") != 1 {
		t.Fatalf("replayed account.updated: %d, %d disbursements", code, f.count(t, "payable.disbursed"))
	}

	// A second payout to the same person: no onboarding, paid at once.
	second := f.create(t, "payables")
	a = f.get(t, f.link(t, second))
	expectPage(t, a, http.StatusOK, "Payout sent")
	if got := f.item(t, "payables", second.ID); got.Status != "disbursed" {
		t.Fatalf("second payable: %+v", got)
	}
}

// account is the connected account remembered for the fixture's contact.
func (f stripeFixture) account(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	tx, err := f.env.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var account string
	if _, err := tx.Exec(ctx, "SELECT set_config('app.tenant_id', $1, true)", f.tenant); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "SELECT account_id FROM rail_accounts").Scan(&account); err != nil {
		t.Fatal(err)
	}
	return account
}

func TestStripeDownLeavesItemsRetryable(t *testing.T) {
	t.Parallel()
	mock := testkit.StripeMock(t)
	// A proxy to stripe-mock that can be switched off: the rail is set up
	// while Stripe answers, then Stripe goes away.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, mock+r.URL.RequestURI(), r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		_, _ = w.Write(buf.Bytes())
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	f := newStripeFixture(t, "http://"+ln.Addr().String())
	rec := f.create(t, "receivables")
	pay := f.create(t, "payables")
	payLink := f.link(t, pay)
	if a := f.get(t, payLink); a.status != http.StatusSeeOther {
		t.Fatalf("payout page: %d", a.status)
	}
	down.Store(true)

	a := f.get(t, f.link(t, rec))
	expectPage(t, a, http.StatusServiceUnavailable, "cannot be reached", "Nothing was charged")
	second := f.create(t, "payables")
	expectPage(t, f.get(t, f.link(t, second)), http.StatusServiceUnavailable, "cannot be reached", "Your payout is safe")
	if got := f.item(t, "receivables", rec.ID); got.Status != "pending" {
		t.Fatalf("receivable %s while Stripe is down, want pending", got.Status)
	}
	// The account turns ready while Stripe is down: the transfer fails
	// with provider_unavailable, and the retry, with Stripe back, pays
	// once under the same idempotency key.
	ready := map[string]any{"id": f.account(t), "object": "account", "payouts_enabled": true}
	if code := f.deliver(t, webhookSecret, "evt_ready", "account.updated", ready); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	got := f.item(t, "payables", pay.ID)
	if got.Status != "failed" || got.FailureReason == nil || *got.FailureReason != "provider_unavailable" {
		t.Fatalf("payable while Stripe is down: %+v", got)
	}
	down.Store(false)
	r := f.env.Do(t, http.MethodPost, "/api/v1/payables/"+pay.ID+"/retry-disbursement", f.token, "{}")
	if r.Status != http.StatusOK {
		t.Fatalf("retry-disbursement: %d %s", r.Status, r.Body)
	}
	if got := f.item(t, "payables", pay.ID); got.Status != "disbursed" {
		t.Fatalf("after the retry: %+v", got)
	}
	// Stripe's absence counts as the rail's errors, each where it struck:
	// the checkout, the second recipient's onboarding, and the transfers
	// tried while it was away (every payable waiting for the account that
	// turned ready: at least this one).
	expectRailCounts(t, f.fixture, "stripe", map[[2]string]float64{
		{railmetrics.Charge, railmetrics.Error}:           1,
		{railmetrics.IdentityCheck, railmetrics.Error}:    1,
		{railmetrics.Disbursement, railmetrics.Succeeded}: 1,
	})
	families, err := f.env.Metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if n := railCount(families, "stripe", railmetrics.Disbursement, railmetrics.Error); n < 1 {
		t.Errorf("transfers failed while Stripe was away: rail_operations_total counts %v errors, want at least 1", n)
	}
}

// expectRailCounts compares rail_operations_total of rail with want, keyed
// by operation and outcome.
func expectRailCounts(t *testing.T, f fixture, rail string, want map[[2]string]float64) {
	t.Helper()
	families, err := f.env.Metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if got := railCount(families, rail, k[0], k[1]); got != v {
			t.Errorf("rail_operations_total{rail=%s,operation=%s,outcome=%s} = %v, want %v", rail, k[0], k[1], got, v)
		}
	}
}

// statusCSRF is the answer to a post without the page's CSRF token.
const statusCSRF = 419

// TestTwoReturnsFromOnboardingMakeOneTransfer: the recipient's browser
// comes back twice at once; the payable is paid once.
func TestTwoReturnsFromOnboardingMakeOneTransfer(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	pay := f.create(t, "payables")
	link := f.link(t, pay)
	if a := f.get(t, link); a.status != http.StatusSeeOther {
		t.Fatalf("payout page: %d", a.status)
	}
	done := make(chan answer, 2)
	for range 2 {
		go func() {
			req, _ := http.NewRequest(http.MethodGet, link+"&onboarding=return", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- answer{}
				return
			}
			resp.Body.Close()
			done <- answer{status: resp.StatusCode}
		}()
	}
	for range 2 {
		if a := <-done; a.status != http.StatusOK {
			t.Errorf("return from onboarding: %d", a.status)
		}
	}
	if got := f.item(t, "payables", pay.ID); got.Status != "disbursed" {
		t.Fatalf("payable %+v", got)
	}
	if n := f.count(t, "payable.disbursed"); n != 1 {
		t.Fatalf("%d payable.disbursed events, want 1", n)
	}
}

// TestRailWebhookActsOnItsOwnTenantOnly: an event on one tenant's rail
// that names another tenant's receivable changes nothing there.
func TestRailWebhookActsOnItsOwnTenantOnly(t *testing.T) {
	t.Parallel()
	mock := testkit.StripeMock(t)
	a := newStripeFixture(t, mock)
	other := a.fixture
	other.tenant = ids.New()
	other.token = a.env.Token(t, other.tenant)
	other.contact = a.env.Contact(t, other.tenant, "cust-2", "Bo", "+14155550124").ID
	if r := a.env.Do(t, http.MethodPut, "/api/v1/payment-rail", other.token,
		`{"provider":"stripe","secret_key":"sk_test_other","webhook_secret":"whsec_other"}`); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	theirs := other.create(t, "receivables")
	paid := map[string]any{"id": "cs_x", "payment_status": "paid", "client_reference_id": theirs.ID,
		"metadata": map[string]any{striperail.MetaReceivable: theirs.ID}}
	if code := a.deliver(t, webhookSecret, "evt_cross", "checkout.session.completed", paid); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}
	if got := other.show(t, "receivables", theirs.ID); got.Status != "pending" {
		t.Fatalf("another tenant's rail moved the receivable to %s", got.Status)
	}
}

// TestRetiredRailStillSettlesItsTransactions: after a key of another
// account and a DELETE, new receivables use the sandbox rail, and one
// created before is still paid through its rail's webhook URL and secret.
func TestRetiredRailStillSettlesItsTransactions(t *testing.T) {
	t.Parallel()
	f := newStripeFixture(t, testkit.StripeMock(t))
	before := f.create(t, "receivables")
	// Another key (stripe-mock names a new account for every key check,
	// so this is another account: a new rail with its own webhook URL).
	r := f.env.Do(t, http.MethodPut, "/api/v1/payment-rail", f.token,
		`{"provider":"stripe","secret_key":"sk_test_rotated9999","webhook_secret":"whsec_new"}`)
	var o struct{ Data railJSON }
	r.JSON(t, &o)
	if r.Status != http.StatusOK || o.Data.SecretKeyLast4 == nil || *o.Data.SecretKeyLast4 != "9999" {
		t.Fatalf("new key: %d %s", r.Status, r.Body)
	}
	if r := f.env.Do(t, http.MethodDelete, "/api/v1/payment-rail", f.token, ""); r.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.Status)
	}
	after := f.create(t, "receivables")
	if got := f.item(t, "receivables", after.ID); got.Rail != "sandbox" {
		t.Fatalf("created after DELETE: rail %s", got.Rail)
	}
	paid := map[string]any{"id": "cs_y", "payment_status": "paid", "client_reference_id": before.ID}
	if code := f.deliver(t, webhookSecret, "evt_late", "checkout.session.completed", paid); code != http.StatusOK {
		t.Fatalf("webhook on the retired rail: %d", code)
	}
	if got := f.item(t, "receivables", before.ID); got.Status != "paid" || got.Rail != "stripe" {
		t.Fatalf("created before DELETE: %+v", got)
	}
}

// TestConnectEventsVerifyWithTheConnectSecret: Stripe signs connected
// accounts' events with the Connect endpoint's secret, which the rail
// accepts beside its own.
func TestConnectEventsVerifyWithTheConnectSecret(t *testing.T) {
	t.Parallel()
	base := newFixture(t)
	base.env.EnableRails(t, testkit.StripeMock(t))
	r := base.env.Do(t, http.MethodPut, "/api/v1/payment-rail", base.token,
		`{"provider":"stripe","secret_key":"sk_test_c","webhook_secret":"`+webhookSecret+`","connect_webhook_secret":"whsec_connect"}`)
	var o struct{ Data railJSON }
	r.JSON(t, &o)
	if r.Status != http.StatusOK || o.Data.WebhookURL == nil || strings.Contains(string(r.Body), "whsec_connect") {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	f := stripeFixture{fixture: base, webhookURL: base.local(*o.Data.WebhookURL)}
	pay := f.create(t, "payables")
	if a := f.get(t, f.link(t, pay)); a.status != http.StatusSeeOther {
		t.Fatalf("payout page: %d", a.status)
	}
	ready := map[string]any{"id": f.account(t), "object": "account", "payouts_enabled": true}
	if code := f.deliver(t, "whsec_connect", "evt_connect", "account.updated", ready); code != http.StatusOK {
		t.Fatalf("connect event: %d", code)
	}
	if got := f.item(t, "payables", pay.ID); got.Status != "disbursed" {
		t.Fatalf("payable %+v", got)
	}
}
