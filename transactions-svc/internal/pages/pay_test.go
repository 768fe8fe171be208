package pages_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"

	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestPayWithEachSandboxCard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name, card, status, page, reason string
		events                           []string
	}{
		{"pays", sandbox.CardPays, "paid", "Payment received", "",
			[]string{"receivable.updated", "receivable.paid", "receivable.updated"}},
		{"declined", sandbox.CardDeclined, "pending", "Your card was declined", "card_declined",
			[]string{"receivable.updated", "receivable.payment_failed", "receivable.updated"}},
		{"processor error", sandbox.CardProcessorError, "failed", "Payment not completed", "processor_error",
			[]string{"receivable.updated", "receivable.payment_failed", "receivable.updated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := f.create(t, "receivables")
			link := f.link(t, it)
			form := card(tt.card)
			form.Set("_csrf", f.open(t, link))
			before := len(f.env.Events(t, f.tenant))
			a := f.post(t, link, form)
			expectPage(t, a, http.StatusOK, tt.page)
			got := f.show(t, "receivables", it.ID)
			if got.Status != tt.status || (tt.reason != "" && (got.FailureReason == nil || *got.FailureReason != tt.reason)) {
				t.Fatalf("after paying: %+v", got)
			}
			if diff := cmp.Diff(tt.events, testenv.Types(f.env.Events(t, f.tenant)[before:])); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if tt.card == sandbox.CardPays {
				// Paid: the page says so, and a second submission changes nothing.
				expectPage(t, f.get(t, link), http.StatusOK, "Payment received")
				expectPage(t, f.post(t, link, form), http.StatusOK, "Payment received")
			}
		})
	}
	// retry-payment after the processor error succeeds.
	failed := f.env.Do(t, http.MethodGet, "/api/v1/receivables?status=failed", f.token, "")
	var list struct{ Data []item }
	failed.JSON(t, &list)
	if len(list.Data) != 1 {
		t.Fatalf("%d failed receivables", len(list.Data))
	}
	r := f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+list.Data[0].ID+"/retry-payment", f.token, "")
	var o struct{ Data item }
	r.JSON(t, &o)
	if r.Status != http.StatusOK || o.Data.Status != "paid" {
		t.Fatalf("retry-payment: %d %s", r.Status, r.Body)
	}
	// Each answer of the rail counted once: the paying card and the retry,
	// the decline, the processor error; the second submission of a paid
	// link never reached the rail.
	for outcome, want := range map[string]float64{railmetrics.Succeeded: 2, railmetrics.Declined: 1, railmetrics.Error: 1} {
		c, err := f.env.Metrics.Gather()
		if err != nil {
			t.Fatal(err)
		}
		if got := railCount(c, "sandbox", railmetrics.Charge, outcome); got != want {
			t.Errorf("rail_operations_total{rail=sandbox,operation=charge,outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
}

// railCount is the value of rail_operations_total with the given labels.
func railCount(families []*dto.MetricFamily, rail, operation, outcome string) float64 {
	for _, f := range families {
		if f.GetName() != "rail_operations_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["rail"] == rail && l["operation"] == operation && l["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return -1
}

func TestFiveDeclinesRevokeTheLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	for i := range 5 {
		form := card(sandbox.CardDeclined)
		form.Set("_csrf", f.open(t, link))
		a := f.post(t, link, form)
		if i < 4 {
			expectPage(t, a, http.StatusOK, "Your card was declined")
		} else {
			expectPage(t, a, http.StatusGone, "This link is no longer active")
		}
	}
	expectPage(t, f.get(t, link), http.StatusGone, "This link is no longer active")
	if got := f.show(t, "receivables", it.ID); got.Status != "pending" || got.PaymentLinkURL != nil {
		t.Fatalf("after 5 declines: %+v", got)
	}
	f.env.Clock.Advance(2e9)
	r := f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/resend-notification", f.token, "")
	var o struct{ Data item }
	r.JSON(t, &o)
	if o.Data.PaymentLinkURL == nil {
		t.Fatalf("resend: %s", r.Body)
	}
	fresh := f.local(*o.Data.PaymentLinkURL)
	form := card(sandbox.CardPays)
	form.Set("_csrf", f.open(t, fresh))
	expectPage(t, f.post(t, fresh, form), http.StatusOK, "Payment received")
}

func TestPayFormChecksTheCard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	form := card("4242424242424241")
	form.Set("cvc", "1")
	form.Set("_csrf", f.open(t, link))
	a := f.post(t, link, form)
	expectPage(t, a, http.StatusUnprocessableEntity, "Enter a valid card number.", "Enter the 3 or 4 digit security code.",
		`aria-invalid="true" aria-describedby="card_number-error"`, `value="Ada Lovelace"`)
	if got := f.show(t, "receivables", it.ID); got.Status != "pending" {
		t.Fatalf("a refused form moved it to %s", got.Status)
	}
}
