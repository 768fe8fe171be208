package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestCreateReceivableSendsItsLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables", `,"currency":"eur","description":"Invoice 42","external_id":"INV-42"`)
	if it.Status != "pending" || it.Currency != "EUR" || it.PaymentLinkURL == nil || it.TransactionID == it.ID {
		t.Fatalf("created %+v", it)
	}
	if !strings.HasPrefix(*it.PaymentLinkURL, testenv.PublicBaseURL+"/l/r/"+it.ID+"?expires=") {
		t.Errorf("payment_link_url %s", *it.PaymentLinkURL)
	}
	evs := f.env.Events(t, f.tenant)
	if diff := cmp.Diff([]string{"receivable.created", "notification.requested"}, testenv.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	var n events.NotificationRequested
	if err := evs[1].Decode(&n); err != nil {
		t.Fatal(err)
	}
	if n.To != "+14155550123" || n.Kind != events.KindPaymentLink || !strings.Contains(n.Body, *it.PaymentLinkURL) ||
		!strings.Contains(n.Body, "€12.50") || n.TransactionID != it.TransactionID {
		t.Errorf("notification %+v", n)
	}
	got := f.do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, "")
	expect(t, got, http.StatusOK, "")
	var o one
	got.JSON(t, &o)
	if o.Data.ID != it.ID || o.Data.PaymentLinkURL == nil || *o.Data.PaymentLinkURL != *it.PaymentLinkURL {
		t.Errorf("show %+v", o.Data)
	}
}
