package devstack

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hostedPages checks the hosted pages as a payer meets them through the
// gateway: the demo tenant's name (identity-svc's tenant.updated reaching
// transactions-svc over the broker) heads the page, and one link answers
// 429 after 30 requests in a minute while another link and the API's
// health probe still answer.
func (x *transactionsE2E) hostedPages(t *testing.T) {
	it, _, _ := x.newItem(t, "receivables")
	link := *it.PaymentLinkURL
	want := fmt.Sprintf(`<p class="payee" id="payee">%s</p>`, demoTenantName)
	sent := 0
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r := x.page(t, http.MethodGet, link, nil)
		sent++
		if r.status == http.StatusOK && strings.Contains(string(r.body), want) {
			break
		}
		if r.status != http.StatusOK || time.Now().After(deadline) || sent == 30 {
			t.Fatalf("the pay page does not name the demo tenant (%d requests): %d\n%s", sent, r.status, r.body)
		}
	}
	for ; sent < 30; sent++ {
		if r := x.page(t, http.MethodGet, link, nil); r.status != http.StatusOK {
			t.Fatalf("request %d to the link: %d", sent+1, r.status)
		}
	}
	r := x.page(t, http.MethodGet, link, nil, "Accept: text/html")
	if r.status != http.StatusTooManyRequests || !strings.Contains(string(r.body), "Please wait a moment") || r.header.Get("Retry-After") == "" {
		t.Fatalf("the 31st request to one link: %d %v\n%s", r.status, r.header, r.body)
	}
	other, _, _ := x.newItem(t, "receivables")
	if r := x.page(t, http.MethodGet, *other.PaymentLinkURL, nil); r.status != http.StatusOK {
		t.Errorf("another link: %d", r.status)
	}
	if r := x.call(t, http.MethodGet, "/api/v1/healthcheck/app", "", "", nil); r.status != http.StatusOK {
		t.Errorf("health probe: %d", r.status)
	}
}
