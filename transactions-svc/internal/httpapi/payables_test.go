package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// selectDestination is the recipient choosing a destination on the payout
// page (the page itself is tested in package pages).
func (f fixture) selectDestination(t *testing.T, it item, last4 string) {
	t.Helper()
	exp, err := time.Parse(time.RFC3339, *it.LinkExpiresAt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.env.App.SelectDestination(context.Background(), it.ID, exp, "bank_account", last4); err != nil {
		t.Fatal(err)
	}
}

func TestPayableNeverShowsItsLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "payables", "")
	r := f.do(t, http.MethodGet, "/api/v1/payables/"+it.ID, "")
	var raw map[string]map[string]any
	r.JSON(t, &raw)
	if _, ok := raw["data"]["payment_link_url"]; ok || it.Status != "pending" || it.LinkExpiresAt == nil {
		t.Fatalf("payable %s", r.Body)
	}
	evs := f.env.Events(t, f.tenant)
	if diff := cmp.Diff([]string{"payable.created", "notification.requested"}, testenv.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if _, ok := rawData(t, evs[0])["payment_link_url"]; ok {
		t.Errorf("payable.created carries a link: %s", evs[0].Data)
	}
	if n := f.env.Notifications(t, f.tenant)[0]; n.Event.Kind != events.KindPayoutLink ||
		!strings.Contains(n.Body, testenv.PublicBaseURL+"/l/p/"+it.ID+"?expires=") {
		t.Errorf("notification %+v", n)
	}
}

func rawData(t *testing.T, e events.Envelope) map[string]any {
	t.Helper()
	var m map[string]any
	if err := e.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPayableActionsAfterDestinationSelection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Identity check fails (0000): destination_selected.
	a := f.create(t, "payables", "")
	f.selectDestination(t, a, "0000")
	got := f.show(t, "payables", a.ID)
	if got.Status != "destination_selected" || got.Destination == nil || got.Destination.Last4 != "0000" ||
		got.FailureReason == nil || *got.FailureReason != "identity_check_failed" {
		t.Fatalf("after selection %+v", got)
	}
	transitionError(t, f.action(t, "payables", a.ID, "cancel", ""), "destination_selected", "cancelled")
	transitionError(t, f.action(t, "payables", a.ID, "resend-notification", ""), "destination_selected", "pending")
	transitionError(t, f.action(t, "payables", a.ID, "expire", ""), "destination_selected", "expired")
	var o one
	f.action(t, "payables", a.ID, "verify-identity", "").JSON(t, &o)
	if o.Data.Status != "destination_selected" {
		t.Fatalf("verify-identity on 0000 moved it to %s", o.Data.Status)
	}
	r := f.action(t, "payables", a.ID, "revoke-link", "")
	expect(t, r, http.StatusOK, "")
	r.JSON(t, &o)
	if o.Data.Status != "pending" || o.Data.Destination != nil || o.Data.FailureReason != nil {
		t.Fatalf("after revoke-link %+v", o.Data)
	}
	transitionError(t, f.action(t, "payables", a.ID, "verify-identity", ""), "pending", "verified")
	f.env.Clock.Advance(2 * time.Second)
	f.action(t, "payables", a.ID, "resend-notification", "").JSON(t, &o)
	if o.Data.LinkExpiresAt == nil || *o.Data.LinkExpiresAt == *a.LinkExpiresAt {
		t.Fatalf("resend after revoke kept the link %+v", o.Data)
	}
	// A good account this time; the disbursement to 1111 fails once.
	f.selectDestination(t, o.Data, "1111")
	if got := f.show(t, "payables", a.ID); got.Status != "failed" {
		t.Fatalf("after the first disbursement %s", got.Status)
	}
	transitionError(t, f.action(t, "payables", a.ID, "cancel", ""), "failed", "cancelled")
	f.action(t, "payables", a.ID, "retry-disbursement", "").JSON(t, &o)
	if o.Data.Status != "disbursed" {
		t.Fatalf("after retry %s", o.Data.Status)
	}
	transitionError(t, f.action(t, "payables", a.ID, "retry-disbursement", ""), "disbursed", "processing")

	b := f.create(t, "payables", "")
	f.selectDestination(t, b, "0000")
	f.action(t, "payables", b.ID, "mark-disbursed", `{"reference":"cheque 12"}`).JSON(t, &o)
	if o.Data.Status != "disbursed" {
		t.Fatalf("mark-disbursed: %s", o.Data.Status)
	}
}

func TestPayableEventsOfASuccessfulPayout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.create(t, "payables", "")
	f.selectDestination(t, a, "6789")
	got := f.show(t, "payables", a.ID)
	if got.Status != "disbursed" {
		t.Fatalf("status %s", got.Status)
	}
	want := []string{"payable.created", "notification.requested",
		"payable.destination_selected", "payable.updated", // pending -> destination_selected
		"payable.updated",                      // -> verified
		"payable.updated",                      // -> processing
		"payable.disbursed", "payable.updated", // -> disbursed
	}
	evs := f.env.Events(t, f.tenant)
	if diff := cmp.Diff(want, testenv.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	statuses := []string{}
	for _, e := range evs[3:] {
		if e.Type == "payable.updated" {
			statuses = append(statuses, rawData(t, e)["status"].(string))
		}
	}
	if diff := cmp.Diff([]string{"destination_selected", "verified", "processing", "disbursed"}, statuses); diff != "" {
		t.Errorf("updated statuses (-want +got):\n%s", diff)
	}
}
