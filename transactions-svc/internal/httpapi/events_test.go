package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// eventsOf returns the type and the status in the data of every event of
// the tenant about the item id, from index from on.
func (f fixture) eventsOf(t *testing.T, id string, from int) []string {
	t.Helper()
	var out []string
	for _, e := range f.env.Events(t, f.tenant)[from:] {
		d := rawData(t, e)
		if d["id"] != id {
			continue
		}
		out = append(out, e.Type+" "+d["status"].(string))
	}
	return out
}

// TestExpiryEvents checks the events of both ways into expired: the
// expire action on a receivable, and a payable whose link's TTL passes.
func TestExpiryEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	before := len(f.env.Events(t, f.tenant))
	expect(t, f.action(t, "receivables", rec.ID, "expire", ""), http.StatusOK, "")
	if diff := cmp.Diff([]string{"receivable.expired expired", "receivable.updated expired"}, f.eventsOf(t, rec.ID, before)); diff != "" {
		t.Errorf("receivable expire events (-want +got):\n%s", diff)
	}

	pay := f.create(t, "payables", `,"link_ttl_hours":2`)
	before = len(f.env.Events(t, f.tenant))
	f.env.Clock.Advance(time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "payables", pay.ID); got.Status != "pending" {
		t.Fatalf("payable before its TTL: %s", got.Status)
	}
	f.env.Clock.Advance(time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "payables", pay.ID); got.Status != "expired" {
		t.Fatalf("payable after its TTL: %s", got.Status)
	}
	evs := f.env.Events(t, f.tenant)[before:]
	if diff := cmp.Diff([]string{"payable.expired", "payable.updated"}, testenv.Types(evs)); diff != "" {
		t.Fatalf("payable TTL events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if d := rawData(t, e); d["id"] != pay.ID || d["status"] != "expired" {
			t.Errorf("%s data: %v", e.Type, d)
		}
		if _, ok := rawData(t, e)["payment_link_url"]; ok {
			t.Errorf("%s carries the payout link", e.Type)
		}
	}
	// A third TTL pass changes nothing: no event for an expired payable.
	f.env.Clock.Advance(100 * time.Hour)
	f.env.RunDue(t)
	if n := len(f.env.Events(t, f.tenant)) - before; n != 2 {
		t.Errorf("%d events after the expiry, want 2", n)
	}
}

// TestPayableFailureEvents checks a failed disbursement (account ending
// 1111) and its retry: payable.disbursement_failed with failure_reason,
// then payable.disbursed.
func TestPayableFailureEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "payables", "")
	before := len(f.env.Events(t, f.tenant))
	f.selectDestination(t, it, "1111")
	want := []string{
		"payable.destination_selected destination_selected", "payable.updated destination_selected",
		"payable.updated verified", "payable.updated processing",
		"payable.disbursement_failed failed", "payable.updated failed",
	}
	if diff := cmp.Diff(want, f.eventsOf(t, it.ID, before)); diff != "" {
		t.Fatalf("events of a failed disbursement (-want +got):\n%s", diff)
	}
	for _, e := range f.env.Events(t, f.tenant)[before:] {
		if e.Type == "payable.disbursement_failed" && rawData(t, e)["failure_reason"] == nil {
			t.Errorf("payable.disbursement_failed without failure_reason: %s", e.Data)
		}
	}
	before = len(f.env.Events(t, f.tenant))
	expect(t, f.action(t, "payables", it.ID, "retry-disbursement", ""), http.StatusOK, "")
	want = []string{"payable.updated processing", "payable.disbursed disbursed", "payable.updated disbursed"}
	if diff := cmp.Diff(want, f.eventsOf(t, it.ID, before)); diff != "" {
		t.Errorf("events of the retry (-want +got):\n%s", diff)
	}
}

// TestManualAssignmentEvents checks transaction.campaign_assigned of the
// campaign-assignment route: automatic false, the previous campaign on a
// reassignment, and nothing for a refused one.
func TestManualAssignmentEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables", "")
	first := f.campaign(t, `{"name":"A","direction":"receivable"}`, true)
	second := f.campaign(t, `{"name":"B","direction":"receivable"}`, true)
	path := "/api/v1/transactions/" + it.TransactionID + "/campaign-assignment"
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+first+`"}`), http.StatusOK, "")
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+second+`"}`), http.StatusConflict, "already_assigned")
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+second+`","reassign":true}`), http.StatusOK, "")
	var got []events.CampaignAssigned
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type != events.TypeTransactionCampaignAssigned {
			continue
		}
		var d events.CampaignAssigned
		if err := e.Decode(&d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if len(got) != 2 {
		t.Fatalf("%d campaign_assigned events, want 2: %+v", len(got), got)
	}
	for i, want := range []string{first, second} {
		if got[i].CampaignID != want || got[i].TransactionID != it.TransactionID || got[i].Automatic {
			t.Errorf("assignment %d: %+v, want campaign %s, manual", i, got[i], want)
		}
	}
	if got[0].PreviousCampaignID != nil || got[1].PreviousCampaignID == nil || *got[1].PreviousCampaignID != first {
		t.Errorf("previous_campaign_id %v then %v, want null then %s", got[0].PreviousCampaignID, got[1].PreviousCampaignID, first)
	}
}
