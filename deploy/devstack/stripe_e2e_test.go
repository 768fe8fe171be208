package devstack

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"
)

// TestStripeRailEndToEnd drives the Stripe rail through the gateway with
// the stack's stripe-mock standing in for Stripe: the demo tenant connects
// a test key, a receivable's page hands the payer to Checkout, a signed
// checkout.session.completed marks it paid and the tenant's webhook
// receives receivable.paid; a forged event is 401 and a replayed one
// changes nothing; a payable's recipient is sent through onboarding and,
// back from it, paid by transfer (payable.disbursed delivered).
func TestStripeRailEndToEnd(t *testing.T) {
	st := startStack(t, tempRoot(t))
	var x *transactionsE2E
	defer func() {
		if x != nil {
			x.hc.CloseIdleConnections()
			x.browser.CloseIdleConnections()
		}
		st.stop(t)
	}()
	if st.info.StripeAPIBase == "" {
		t.Fatal("the stack started without stripe-mock")
	}
	x = newTransactionsE2E(t, st.info)
	rc := newWHReceiver(t, filepath.Join(st.info.Root, "tls"))
	r := x.whSend(t, http.MethodPost, "/api/v1/webhook-endpoints", map[string]any{
		"name": "rail events", "url": rc.url, "subscribed_events": []string{"receivable.*", "payable.*"},
	})
	x.expectStatus(t, r, http.StatusCreated)

	const secret = "whsec_devstack_rail"
	r = x.whSend(t, http.MethodPut, "/api/v1/payment-rail", map[string]any{
		"provider": "stripe", "secret_key": "sk_test_devstack1234", "webhook_secret": secret})
	x.expectStatus(t, r, http.StatusOK)
	var rail struct {
		Data struct {
			Mode       string `json:"mode"`
			WebhookURL string `json:"webhook_url"`
		} `json:"data"`
	}
	whDecode(t, r.body, &rail)
	if rail.Data.Mode != "test" || !strings.HasPrefix(rail.Data.WebhookURL, st.info.GatewayURL+"/webhooks/rails/stripe/") ||
		strings.Contains(string(r.body), "sk_test_devstack1234") || strings.Contains(string(r.body), secret) {
		t.Fatalf("PUT /payment-rail: %s", r.body)
	}
	hook := strings.TrimPrefix(rail.Data.WebhookURL, st.info.GatewayURL)

	// A receivable: its page redirects to Checkout; Stripe's signed event
	// pays it.
	rec, _, _ := x.newItem(t, "receivables")
	if rec.PaymentLinkURL == nil {
		t.Fatal("no payment link")
	}
	page := x.page(t, http.MethodGet, *rec.PaymentLinkURL, nil)
	if page.status != http.StatusSeeOther || !strings.HasPrefix(page.header.Get("Location"), "https://checkout.stripe.com/") {
		t.Fatalf("pay page: %d Location %q", page.status, page.header.Get("Location"))
	}
	paid := map[string]any{"id": "cs_test_e2e", "object": "checkout.session", "payment_status": "paid",
		"payment_intent": "pi_e2e", "client_reference_id": rec.ID, "metadata": map[string]any{"paylane_receivable_id": rec.ID}}
	x.expectError(t, stripeDeliver(t, x, hook, "whsec_forged", "evt_e2e_paid", "checkout.session.completed", paid),
		http.StatusUnauthorized, "invalid_signature")
	x.expectStatus(t, stripeDeliver(t, x, hook, secret, "evt_e2e_paid", "checkout.session.completed", paid), http.StatusOK)
	got, keys := x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+rec.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "paid" || string(keys["rail"]) != `"stripe"` || string(keys["provider_reference"]) != `"pi_e2e"` {
		t.Fatalf("after checkout.session.completed: %s", keys)
	}
	rc.waitFor(t, func(b whBody) bool { return b.Type == "receivable.paid" && b.Data.ID == rec.ID })
	before := string(keys["updated_at"])
	x.expectStatus(t, stripeDeliver(t, x, hook, secret, "evt_e2e_paid", "checkout.session.completed", paid), http.StatusOK)
	if _, again := x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+rec.ID, x.token, "", nil), http.StatusOK); string(again["updated_at"]) != before {
		t.Fatal("a replayed webhook changed the receivable")
	}

	// A payable: onboarding at Stripe, then back to Paylane's page, where
	// the ready account is paid by transfer.
	pay, _, e164 := x.newItem(t, "payables")
	sms := x.awaitSMS(t, e164, "payout_link")
	link := regexp.MustCompile(`https://\S+/l/p/` + pay.ID + `\?expires=\d+&signature=[0-9a-f]+`).FindString(sms)
	if link == "" {
		t.Fatalf("no payout link in %q", sms)
	}
	page = x.page(t, http.MethodGet, link, nil)
	if page.status != http.StatusSeeOther || !strings.HasPrefix(page.header.Get("Location"), "https://") {
		t.Fatalf("payout page: %d Location %q", page.status, page.header.Get("Location"))
	}
	page = x.page(t, http.MethodGet, link+"&onboarding=return", nil)
	if page.status != http.StatusOK || !strings.Contains(string(page.body), "Payout sent") {
		t.Fatalf("back from onboarding: %d\n%s", page.status, page.body)
	}
	got, keys = x.item(t, x.call(t, http.MethodGet, "/api/v1/payables/"+pay.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "disbursed" || !strings.HasPrefix(string(keys["provider_reference"]), `"tr_`) {
		t.Fatalf("after the transfer: %s", keys)
	}
	rc.waitFor(t, func(b whBody) bool { return b.Type == "payable.disbursed" && b.Data.ID == pay.ID })

	t.Run("README walk-through on the Stripe rail", func(t *testing.T) { readmeStripe(t, st.info) })
}

// readmeStripe runs the README's "First payment" walk-through followed by
// its Stripe part, as a reader pastes them, and checks that the receivable
// ends paid on the Stripe rail.
func readmeStripe(t *testing.T, info Info) {
	script := readmeBlock(t, "## First payment") + readmeBlock(t, "### On the Stripe rail")
	dir := t.TempDir()
	if err := os.Symlink(info.Root, filepath.Join(dir, ".paylane")); err != nil {
		t.Fatal(err)
	}
	work, err := filepath.Abs("../../go.work")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK="+work)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walk-through: %v\n%s", err, out)
	}
	for _, want := range []string{"303 https://checkout.stripe.com/", `{"received":true}`,
		`{"status":"paid","rail":"stripe","provider_reference":"pi_test_1"}`, "\n204\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walk-through printed no %q:\n%s", want, out)
		}
	}
}

// stripeDeliver posts a Stripe event to the rail's webhook path through the
// gateway, signed with secret as Stripe signs it.
func stripeDeliver(t *testing.T, x *transactionsE2E, path, secret, id, typ string, object map[string]any) response {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2024-06-20",
		"created": time.Now().Unix(), "livemode": false, "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: time.Now()})
	req, err := http.NewRequest(http.MethodPost, x.info.GatewayURL+path, bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Stripe-Signature", sig.Header)
	resp, err := x.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: buf.Bytes()}
}
