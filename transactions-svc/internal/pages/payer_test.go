package pages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
)

// name applies identity-svc's tenant.updated event naming the fixture's
// tenant, as of updatedAt, and returns the event.
func (f fixture) name(t *testing.T, name string, updatedAt time.Time) events.Envelope {
	t.Helper()
	env, err := events.New(events.TypeTenantUpdated, f.tenant, "", map[string]any{
		"id": f.tenant, "name": name, "default_currency": "USD", "updated_at": updatedAt})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.env.App.ApplyTenant(context.Background(), env); err != nil {
		t.Fatalf("applying tenant event: %v", err)
	}
	return env
}

func lacks(t *testing.T, a answer, s string) {
	t.Helper()
	if strings.Contains(a.body, s) {
		t.Errorf("page %d holds %q:\n%s", a.status, s, a.body)
	}
}

func TestPagesNameTheTenant(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pay, payout := f.link(t, f.create(t, "receivables")), f.link(t, f.create(t, "payables"))
	// Before any tenant event the pages work without the name.
	a := f.get(t, pay)
	expectPage(t, a, http.StatusOK, "Payment request")
	lacks(t, a, `class="payee"`)

	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	f.name(t, "Acme &amp; Sons", t0)
	renamed := f.name(t, "Acme Plumbing", t0.Add(time.Hour))
	// An older state arriving late and a redelivery change nothing.
	f.name(t, "Acme Old Name", t0.Add(time.Minute))
	if err := f.env.App.ApplyTenant(context.Background(), renamed); err != nil {
		t.Fatal(err)
	}
	for name, u := range map[string]string{"pay": pay, "payout": payout} {
		a := f.get(t, u)
		expectPage(t, a, http.StatusOK, `<p class="payee" id="payee">Acme Plumbing</p>`, "<title>")
		if !strings.Contains(a.body, "· Acme Plumbing</title>") {
			t.Errorf("%s page title lacks the name", name)
		}
		lacks(t, a, "Old Name")
	}

	// A link that was revoked still names its sender; a link whose
	// signature fails names nobody.
	it := f.create(t, "receivables")
	link := f.link(t, it)
	if r := f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/revoke-link", f.token, ""); r.Status != http.StatusOK {
		t.Fatalf("revoke-link: %d %s", r.Status, r.Body)
	}
	expectPage(t, f.get(t, link), http.StatusGone, "Acme Plumbing", "This link is no longer active")
	a = f.get(t, strings.Replace(pay, "signature=", "signature=00", 1))
	expectPage(t, a, http.StatusUnauthorized)
	lacks(t, a, "Acme")
}

func TestTenantEventsOfOtherKindsAreIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env, _ := events.New(events.TypeTokenRevoked, f.tenant, "", map[string]any{"token_id": 3})
	if err := f.env.App.ApplyTenant(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	bad, _ := events.New(events.TypeTenantUpdated, f.tenant, "", "not an object")
	if err := f.env.App.ApplyTenant(context.Background(), bad); err != nil {
		t.Fatalf("a malformed event must be skipped, not retried: %v", err)
	}
	if name, err := f.env.App.TenantName(context.Background(), f.tenant); err != nil || name != "" {
		t.Fatalf("name %q, %v; want none", name, err)
	}
}

func TestReceiptAfterPaying(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	form := card(sandbox.CardPays)
	form.Set("_csrf", f.open(t, link))
	paidAt := f.env.Clock.Now().UTC()
	want := []string{"Payment received", `<dd id="receipt-reference">` + it.ID + "</dd>",
		`<dd id="receipt-method">Visa ending 4242</dd>`, "Paid with",
		`<time datetime="` + paidAt.Format(time.RFC3339) + `">` + paidAt.Format("2 January 2006, 15:04 UTC") + "</time>"}
	expectPage(t, f.post(t, link, form), http.StatusOK, want...)
	// Coming back to the link shows the same receipt.
	expectPage(t, f.get(t, link), http.StatusOK, want...)
}

func TestReceiptAfterPayout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		form   func() map[string][]string
		method string
	}{
		{"bank account", func() map[string][]string { return bank("000123456789") }, "Bank account ending 6789"},
		{"debit card", func() map[string][]string { return debit(debitCard("4321")) }, "Debit card ending 4321"},
	}
	for _, tt := range tests {
		it := f.create(t, "payables")
		link := f.link(t, it)
		form := tt.form()
		form["_csrf"] = []string{f.open(t, link)}
		want := []string{"Payout sent", `<dd id="receipt-reference">` + it.ID + "</dd>",
			"Sent to", `<dd id="receipt-method">` + tt.method + "</dd>", `<time datetime="`}
		expectPage(t, f.post(t, link, form), http.StatusOK, want...)
		expectPage(t, f.get(t, link), http.StatusOK, want...)
	}
	// A payout waiting for verification shows its reference, not a date.
	it := f.create(t, "payables")
	link := f.link(t, it)
	form := debit(debitCard("0000"))
	form.Set("_csrf", f.open(t, link))
	a := f.post(t, link, form)
	expectPage(t, a, http.StatusOK, "Verification needed", it.ID, "Debit card ending 0000")
	lacks(t, a, "<time")
}

func TestDeclineNoticeOnlyAnswersTheDeclinedPost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables")
	link := f.link(t, it)
	form := card(sandbox.CardDeclined)
	form.Set("_csrf", f.open(t, link))
	expectPage(t, f.post(t, link, form), http.StatusOK, "Your card was declined. Try another card.", `name="card_number"`)
	if got := f.show(t, "receivables", it.ID); got.FailureReason == nil || *got.FailureReason != "card_declined" {
		t.Fatalf("after the decline: %+v", got)
	}
	// A fresh load of the page is a fresh start.
	a := f.get(t, link)
	expectPage(t, a, http.StatusOK, `name="card_number"`)
	lacks(t, a, "Your card was declined")
	// A form refused for its own input does not bring the old notice back.
	form = card("4242424242424241")
	form.Set("_csrf", csrf(t, a))
	a = f.post(t, link, form)
	expectPage(t, a, http.StatusUnprocessableEntity, "Enter a valid card number.")
	lacks(t, a, "Your card was declined")
}

func TestSandboxNoticeOnlyOnSandboxRail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pay, payout := f.link(t, f.create(t, "receivables")), f.link(t, f.create(t, "payables"))
	expectPage(t, f.get(t, pay), http.StatusOK, "Sandbox: 4242 4242 4242 4242 pays")
	expectPage(t, f.get(t, payout), http.StatusOK, "Sandbox: a number ending 0000")
	// Pages without a form never show it.
	it := f.create(t, "receivables")
	link := f.link(t, it)
	form := card(sandbox.CardPays)
	form.Set("_csrf", f.open(t, link))
	lacks(t, f.post(t, link, form), "Sandbox")

	// A tenant on the Stripe rail: its pages name it and never list the
	// sandbox's numbers.
	s := newStripeFixture(t, testkit.StripeMock(t))
	s.name(t, "Acme Live", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	back := s.get(t, s.link(t, s.create(t, "receivables"))+"&checkout=return")
	expectPage(t, back, http.StatusOK, "Payment submitted", `id="payee">Acme Live</p>`)
	lacks(t, back, "Sandbox")
	lacks(t, back, "No money moves")
}
