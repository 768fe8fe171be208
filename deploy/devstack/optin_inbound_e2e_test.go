package devstack

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stoppedReceivable: a receivable for a contact whose number texted STOP
// sends no SMS; the sink keeps the payment link message as suppressed and
// the receivable's latest_message shows suppressed (optin-svc's
// message.suppressed event reaches transactions-svc).
func (o *optinE2E) stoppedReceivable(t *testing.T, e164, contactID string) {
	r := o.call(t, http.MethodPost, "/api/v1/receivables", o.token,
		fmt.Sprintf(`{"contact_id":%q,"amount":2500,"description":"Order after STOP"}`, contactID), nil)
	var created struct {
		ID string `json:"id"`
	}
	o.decodeData(t, r, http.StatusCreated, &created)

	type latest struct {
		LatestMessage *struct {
			Status  string  `json:"status"`
			Channel string  `json:"channel"`
			SentAt  *string `json:"sent_at"`
		} `json:"latest_message"`
	}
	var got latest
	deadline := time.Now().Add(20 * time.Second) // a bound on two event hops, not a latency check
	for got.LatestMessage == nil {
		if time.Now().After(deadline) {
			t.Fatal("latest_message still null after 20 s")
		}
		time.Sleep(100 * time.Millisecond)
		o.decodeData(t, o.call(t, http.MethodGet, "/api/v1/receivables/"+created.ID, o.token, "", nil), http.StatusOK, &got)
	}
	if m := got.LatestMessage; m.Status != "suppressed" || m.Channel != "sms" || m.SentAt != nil {
		t.Fatalf("latest_message %+v, want suppressed on sms, never sent", *m)
	}

	var msgs []struct {
		Kind   string `json:"kind"`
		Status string `json:"status"`
	}
	path := "/admin/v1/tenants/" + o.info.DemoTenantID + "/messages?to=" + url.QueryEscape(e164)
	o.decodeData(t, o.adminCall(t, http.MethodGet, path, ""), http.StatusOK, &msgs)
	links := 0
	for _, m := range msgs {
		if m.Kind != "payment_link" {
			continue
		}
		links++
		if m.Status != "suppressed" {
			t.Errorf("payment link SMS to a number that texted STOP: status %s, want suppressed", m.Status)
		}
	}
	if links != 1 {
		t.Errorf("%d payment link messages to the number, want 1 (suppressed)", links)
	}
}

// webhookLimitPerMinute is the gateway's per-IP limit on the SMS provider's
// callbacks (spec section 8, contract section 1).
const webhookLimitPerMinute = 120

// inboundLimit: /webhooks/sms/inbound takes 120 requests a minute from one
// IP at the gateway, then answers 429 rate_limited with Retry-After. The
// requests carry no signature (optin-svc answers them 403): the gateway
// counts them before anything reaches optin-svc. It spends the IP's whole
// allowance, so it runs last.
func (o *optinE2E) inboundLimit(t *testing.T) {
	form := url.Values{"From": {"+14155550100"}, "To": {devSenderNumber}, "Body": {"HELP"}}
	post := func() response {
		req, err := http.NewRequest(http.MethodPost, o.info.GatewayURL+inboundPath, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return o.roundTrip(t, o.hc, req)
	}
	start := time.Now()
	first := post()
	o.expectError(t, first, http.StatusForbidden, "invalid_signature")
	if got := first.header.Get("X-RateLimit-Limit"); got != strconv.Itoa(webhookLimitPerMinute) {
		t.Fatalf("X-RateLimit-Limit %q on the inbound webhook, want %d", got, webhookLimitPerMinute)
	}
	remaining, err := strconv.Atoi(first.header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatalf("X-RateLimit-Remaining %q: %v", first.header.Get("X-RateLimit-Remaining"), err)
	}
	// The allowance refills at 2 requests a second (GCRA), so the burst may
	// pass a few more than remaining; far more means no limit.
	var limited response
	passed := 0
	for i := 0; i < 2*webhookLimitPerMinute; i++ {
		r := post()
		if r.status == http.StatusTooManyRequests {
			limited = r
			break
		}
		o.expectError(t, r, http.StatusForbidden, "invalid_signature")
		passed++
	}
	if limited.status == 0 {
		t.Fatalf("no 429 after %d more inbound requests", passed)
	}
	refill := int(time.Since(start)/(time.Minute/webhookLimitPerMinute)) + 1
	if passed < remaining || passed > remaining+refill {
		t.Errorf("%d requests passed after the first (remaining %d, refill up to %d), want the limit to hold",
			passed, remaining, refill)
	}
	o.expectError(t, limited, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want a positive number of seconds", limited.header.Get("Retry-After"))
	}
	// The API keeps its own budget (per token).
	o.expectStatus(t, o.call(t, http.MethodGet, "/api/v1/suppression-list", o.token, "", nil), http.StatusOK)
}
