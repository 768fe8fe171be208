package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	contactsclient "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// rowOut is a bulk-create row outcome.
type rowOut struct {
	RowIndex int                 `json:"row_index"`
	ID       string              `json:"id"`
	Action   string              `json:"action"`
	Errors   map[string][]string `json:"errors"`
}

// bulkRequest is a chunk as batch-svc sends it.
func bulkRequest(batchID, options string, items ...string) string {
	return fmt.Sprintf(`{"batch_id":%q,"first_row_index":0%s,"items":[%s]}`, batchID, options, strings.Join(items, ","))
}

// bulk posts a chunk to path ("receivables" or "payables") and returns its
// rows.
func (f fixture) bulk(t *testing.T, path, body string) []rowOut {
	t.Helper()
	r := f.do(t, http.MethodPost, "/internal/v1/"+path+"/bulk-create", body)
	expect(t, r, http.StatusOK, "")
	var out struct {
		Data []rowOut `json:"data"`
	}
	r.JSON(t, &out)
	return out.Data
}

// actions lists the actions of rows.
func actions(rows []rowOut) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Action
	}
	return out
}

// notifications returns the notification.requested events of the tenant
// with their numbers and texts.
func (f fixture) notifications(t *testing.T) []testenv.Notification {
	t.Helper()
	return f.env.Notifications(t, f.tenant)
}

func TestBulkCreateRowsContactsAndRetry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := f.env.Contact(t, f.tenant, "", "Grace", "+14155550177")
	body := bulkRequest("B1", "",
		`{"contact":{"external_id":"crm-new","first_name":"Alan","last_name":"Turing","phone":"(415) 555-0150"},"amount":1200,"description":"Invoice 1"}`,
		`{"contact":{"external_id":"cust-1"},"amount":1300}`,
		`{"contact":{"external_id":"crm-x","phone":"+14155550160"},"amount":"12"}`,
		`{"contact":{"external_id":"crm-y","phone":"+14155550161"},"amount":5,"colour":"red"}`,
		`{"contact":{"first_name":"Dup","phone":"+14155550177"},"amount":1400}`,
		fmt.Sprintf(`{"contact_id":%q,"amount":1500}`, other.ID),
		`{"contact":{"phone":"+14155550162","first_name":"Later"},"amount":1600,"send_at":"2026-12-01T09:00:00Z"}`,
		`{"contact":{"external_id":"crm-new"},"amount":1700}`,
	)
	rows := f.bulk(t, "receivables", body)
	want := []string{"created", "created", "failed", "failed", "failed", "created", "created", "created"}
	if diff := cmp.Diff(want, actions(rows)); diff != "" {
		t.Fatalf("actions (-want +got):\n%s\nrows %+v", diff, rows)
	}
	for i, r := range rows {
		if r.RowIndex != i || (r.Action == "created") != (r.ID != "") {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	wantErrs := map[int]string{2: "amount", 3: "colour", 4: "contact.phone"}
	for i, field := range wantErrs {
		if len(rows[i].Errors[field]) == 0 || len(rows[i].Errors) != 1 {
			t.Errorf("row %d errors %v, want one on %s", i, rows[i].Errors, field)
		}
	}

	first, existing, byID, scheduled, again := f.show(t, "receivables", rows[0].ID), f.show(t, "receivables", rows[1].ID),
		f.show(t, "receivables", rows[5].ID), f.show(t, "receivables", rows[6].ID), f.show(t, "receivables", rows[7].ID)
	if first.Status != "pending" || first.PaymentLinkURL == nil || first.CampaignID != nil || first.Amount != 1200 {
		t.Errorf("created receivable %+v", first)
	}
	if existing.ContactID != f.contact || byID.ContactID != other.ID || again.ContactID != first.ContactID || first.ContactID == f.contact {
		t.Errorf("contacts: row0 %s, row1 %s (want %s), row5 %s (want %s), row7 %s (want row0's)",
			first.ContactID, existing.ContactID, f.contact, byID.ContactID, other.ID, again.ContactID)
	}
	if scheduled.Status != "scheduled" || scheduled.PaymentLinkURL != nil {
		t.Errorf("scheduled row %+v", scheduled)
	}
	sms := f.notifications(t)
	var to []string
	for _, n := range sms {
		to = append(to, n.To)
	}
	if diff := cmp.Diff([]string{"+14155550150", "+14155550123", "+14155550177", "+14155550150"}, to); diff != "" {
		t.Errorf("SMS recipients (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(sms[0].Body, "Hi Alan, you have a payment request of $12.00 (Invoice 1). Pay securely: "+testenv.PublicBaseURL) {
		t.Errorf("SMS body %q", sms[0].Body)
	}
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type != events.TypeNotificationRequested {
			t.Errorf("event %s written without emit_events", e.Type)
		}
	}

	before := len(f.env.Events(t, f.tenant))
	if again := f.bulk(t, "receivables", body); !cmp.Equal(rows, again) {
		t.Errorf("retried chunk answered %+v, want %+v", again, rows)
	}
	if n := len(f.env.Events(t, f.tenant)); n != before {
		t.Errorf("retried chunk wrote %d events", n-before)
	}
	var list struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	f.do(t, http.MethodGet, "/api/v1/receivables", "").JSON(t, &list)
	if list.Meta.Total != 5 {
		t.Errorf("%d receivables after the retry, want 5", list.Meta.Total)
	}
}

func TestBulkCreateDuplicates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	inv1 := f.create(t, "receivables", `,"external_id":"inv-1"`)
	paid := f.create(t, "receivables", `,"external_id":"inv-paid"`)
	expect(t, f.action(t, "receivables", paid.ID, "mark-paid", "{}"), http.StatusOK, "")
	item := func(ext string, amount int) string {
		return fmt.Sprintf(`{"contact":{"external_id":"cust-1"},"external_id":%q,"amount":%d}`, ext, amount)
	}

	rows := f.bulk(t, "receivables", bulkRequest("U", "", item("inv-1", 999), item("inv-paid", 5), item("inv-2", 10), item("inv-2", 777)))
	if diff := cmp.Diff([]string{"updated", "failed", "created", "updated"}, actions(rows)); diff != "" {
		t.Fatalf("update actions (-want +got):\n%s\n%+v", diff, rows)
	}
	if rows[0].ID != inv1.ID || rows[3].ID != rows[2].ID || len(rows[1].Errors["external_id"]) == 0 {
		t.Errorf("update rows %+v", rows)
	}
	if got := f.show(t, "receivables", inv1.ID); got.Amount != 999 || got.Status != "pending" {
		t.Errorf("updated receivable %+v", got)
	}
	if got := f.show(t, "receivables", rows[2].ID); got.Amount != 777 {
		t.Errorf("receivable created then updated in one chunk: amount %d, want 777", got.Amount)
	}

	rows = f.bulk(t, "receivables", bulkRequest("S", `,"on_duplicate":"skip"`, item("inv-1", 1), item("inv-3", 20), item("inv-3", 21)))
	if diff := cmp.Diff([]string{"skipped", "created", "skipped"}, actions(rows)); diff != "" || rows[0].ID != inv1.ID || rows[2].ID != rows[1].ID {
		t.Fatalf("skip rows %+v (-want +got):\n%s", rows, diff)
	}
	if got := f.show(t, "receivables", inv1.ID); got.Amount != 999 {
		t.Errorf("skipped receivable changed: amount %d", got.Amount)
	}

	rows = f.bulk(t, "receivables", bulkRequest("F", `,"on_duplicate":"fail"`, item("inv-1", 1), item("inv-4", 30), item("inv-4", 31)))
	if diff := cmp.Diff([]string{"failed", "created", "failed"}, actions(rows)); diff != "" || len(rows[2].Errors["external_id"]) == 0 {
		t.Fatalf("fail rows %+v (-want +got):\n%s", rows, diff)
	}
}

func TestBulkCreateCampaignsAndEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	steps := `"steps":[{"delay_hours":24,"message":"Reminder {{link}}"},{"delay_hours":48,"message":"Last call {{link}}"}]`
	direct := f.campaign(t, `{"name":"Direct","direction":"payable",`+steps+`}`, true)
	ruled := f.campaign(t, `{"name":"Big","direction":"payable","priority":9,"rules":[{"field":"amount","op":"gte","value":1000}]}`, true)
	draft := f.campaign(t, `{"name":"Draft","direction":"payable"}`, false)
	item := func(amount int) string {
		return fmt.Sprintf(`{"contact":{"external_id":"cust-1"},"amount":%d}`, amount)
	}

	rows := f.bulk(t, "payables", bulkRequest("C1", fmt.Sprintf(`,"campaign_id":%q,"emit_events":true`, direct), item(50), item(5000)))
	for _, r := range rows {
		if got := f.show(t, "payables", r.ID); got.CampaignID == nil || *got.CampaignID != direct {
			t.Errorf("payable of campaign_id: campaign %v, want %s", got.CampaignID, direct)
		}
		if diff := cmp.Diff([]string{"payable.created pending"}, f.eventsOf(t, r.ID, 0)); diff != "" {
			t.Errorf("events of %s (-want +got):\n%s", r.ID, diff)
		}
	}
	types := testenv.Types(f.env.Events(t, f.tenant))
	if diff := cmp.Diff([]string{"payable.created", "transaction.campaign_assigned", "notification.requested",
		"payable.created", "transaction.campaign_assigned", "notification.requested"}, types); diff != "" {
		t.Errorf("event types with emit_events (-want +got):\n%s", diff)
	}

	rows = f.bulk(t, "payables", bulkRequest("C2", `,"auto_assign_campaign":true`, item(50), item(5000)))
	small, big := f.show(t, "payables", rows[0].ID), f.show(t, "payables", rows[1].ID)
	if small.CampaignID == nil || *small.CampaignID != direct || big.CampaignID == nil || *big.CampaignID != ruled {
		t.Errorf("auto-assigned campaigns: small %v (want %s, no rules), big %v (want %s, priority 9)", small.CampaignID, direct, big.CampaignID, ruled)
	}
	rows = f.bulk(t, "payables", bulkRequest("C3", "", item(5000)))
	if got := f.show(t, "payables", rows[0].ID); got.CampaignID != nil {
		t.Errorf("a batch without campaign options assigned %v", *got.CampaignID)
	}

	// An unassignable campaign fails the rows, not the chunk
	// (TestBulkCreateUnassignableCampaignFailsRows).
	rows = f.bulk(t, "payables", bulkRequest("C4", fmt.Sprintf(`,"campaign_id":%q`, draft), item(5)))
	if len(rows) != 1 || rows[0].Action != "failed" || len(rows[0].Errors["campaign_id"]) == 0 {
		t.Errorf("unpublished campaign_id: %+v", rows)
	}
}

func TestBulkCreateEnvelopeAndGate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	item := `{"contact":{"external_id":"cust-1"},"amount":5}`
	many := make([]string, 501)
	for i := range many {
		many[i] = item
	}
	for name, body := range map[string]string{
		"no items":        bulkRequest("E", ""),
		"501 items":       bulkRequest("E", "", many...),
		"no batch id":     bulkRequest("", "", item),
		"bad on_dup":      bulkRequest("E", `,"on_duplicate":"merge"`, item),
		"other direction": bulkRequest("E", `,"direction":"payable"`, item),
		"negative index":  strings.Replace(bulkRequest("E", "", item), `"first_row_index":0`, `"first_row_index":-1`, 1),
	} {
		r := f.do(t, http.MethodPost, "/internal/v1/receivables/bulk-create", body)
		if r.Status != http.StatusUnprocessableEntity || r.Code(t) != "validation_failed" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	big := make([]string, 500)
	for i := range big {
		big[i] = `{"contact":{"external_id":"cust-1"},"amount":5,"note":"` + strings.Repeat("x", 3000) + `"}`
	}
	r := f.do(t, http.MethodPost, "/internal/v1/receivables/bulk-create", bulkRequest("BIG", "", big...))
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"note":["The note field is not allowed."]`) {
		t.Errorf("a 1.5 MB chunk: %d %.200s", r.Status, r.Body)
	}

	payOnly := f.env.Token(t, f.tenant, "api:create-payable")
	r = f.env.Do(t, http.MethodPost, "/internal/v1/receivables/bulk-create", payOnly, bulkRequest("G", "", item))
	expect(t, r, http.StatusForbidden, "")
	r = f.env.Do(t, http.MethodPost, "/internal/v1/payables/bulk-create", payOnly, bulkRequest("G", "", item))
	expect(t, r, http.StatusOK, "")
	var out struct {
		Data []rowOut `json:"data"`
	}
	r.JSON(t, &out)
	if len(out.Data) != 1 || out.Data[0].Action != "created" {
		t.Errorf("payable chunk with api:create-payable only: %s", r.Body)
	}
}

func TestBulkCreateFromAnotherTenantSeesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	inv := f.create(t, "receivables", `,"external_id":"inv-1"`)
	stranger := fixture{env: f.env, tenant: ids.New()}
	stranger.token = f.env.Token(t, stranger.tenant)
	stranger.env.Contact(t, stranger.tenant, "cust-1", "Eve", "+14155550190")
	rows := stranger.bulk(t, "receivables", bulkRequest("B1", `,"on_duplicate":"skip"`,
		`{"contact":{"external_id":"cust-1"},"external_id":"inv-1","amount":5}`))
	if len(rows) != 1 || rows[0].Action != "created" || rows[0].ID == inv.ID {
		t.Errorf("another tenant's chunk with the same batch id and external id: %+v", rows)
	}
	raw, _ := json.Marshal(rows)
	if strings.Contains(string(raw), inv.ID) {
		t.Errorf("another tenant's id leaked: %s", raw)
	}
}

// TestBulkCreateResumesWithTheRecordedContacts stands for a worker that
// stopped after contacts-svc recorded a chunk's contacts and before
// transactions-svc committed: the chunk again gets the same contacts (here
// one without an external id, which a second creation would refuse as a
// taken phone), and a contact_id of a deleted contact fails its row.
func TestBulkCreateResumesWithTheRecordedContacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first, err := contactsclient.New(f.env.ContactsURL, nil).BulkUpsert(context.Background(), f.token, contactsclient.BulkUpsertRequest{
		BatchID: "R", OnDuplicate: contactsclient.DuplicateSkip, FirstRowIndex: 7,
		Items: []contactsclient.ContactInput{{FirstName: "Kit", Phone: "+14155550140"}},
	})
	if err != nil || len(first) != 1 || first[0].Action != contactsclient.ActionCreated {
		t.Fatalf("the first attempt's contact: %+v, %v", first, err)
	}
	gone := f.env.Contact(t, f.tenant, "gone", "Gone", "+14155550141")
	f.env.DeleteContact(t, f.tenant, gone.ID)
	rows := f.bulk(t, "receivables", strings.Replace(bulkRequest("R", "",
		`{"contact":{"first_name":"Kit","phone":"+14155550140"},"amount":700}`,
		fmt.Sprintf(`{"contact_id":%q,"amount":800}`, gone.ID),
	), `"first_row_index":0`, `"first_row_index":7`, 1))
	if diff := cmp.Diff([]string{"created", "failed"}, actions(rows)); diff != "" || len(rows[1].Errors["contact_id"]) == 0 {
		t.Fatalf("rows %+v (-want +got):\n%s", rows, diff)
	}
	if got := f.show(t, "receivables", rows[0].ID); got.ContactID != first[0].ContactID {
		t.Errorf("resumed row's contact %s, want the recorded %s", got.ContactID, first[0].ContactID)
	}
}

// TestBulkCreateSchedulesLikeACreate follows the work a chunk queues: the
// scheduled item's send, the campaign's follow-up and the link's expiry.
func TestBulkCreateSchedulesLikeACreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	camp := f.campaign(t, `{"name":"R","direction":"receivable","steps":[{"delay_hours":24,"message":"Reminder {{link}}"}]}`, true)
	rows := f.bulk(t, "receivables", bulkRequest("S", fmt.Sprintf(`,"campaign_id":%q`, camp),
		`{"contact":{"external_id":"cust-1"},"amount":100,"link_ttl_hours":30}`,
		`{"contact":{"external_id":"cust-1"},"amount":200,"send_at":"2026-11-22T03:21:17Z"}`))
	bodies := func() []string {
		var out []string
		for _, n := range f.notifications(t) {
			out = append(out, n.Event.TransactionID+" "+strings.Fields(n.Body)[0])
		}
		return out
	}
	now, later := f.show(t, "receivables", rows[0].ID), f.show(t, "receivables", rows[1].ID)
	if diff := cmp.Diff([]string{now.TransactionID + " Hi"}, bodies()); diff != "" || later.Status != "scheduled" {
		t.Fatalf("SMS at once (-want +got):\n%s\nscheduled row: %s", diff, later.Status)
	}
	f.env.Clock.Advance(2 * time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "receivables", rows[1].ID); got.Status != "pending" || got.PaymentLinkURL == nil {
		t.Errorf("scheduled row at its send_at: %+v", got)
	}
	f.env.Clock.Advance(22 * time.Hour)
	f.env.RunDue(t)
	want := []string{now.TransactionID + " Hi", later.TransactionID + " Hi", now.TransactionID + " Reminder"}
	if diff := cmp.Diff(want, bodies()); diff != "" {
		t.Errorf("SMS after 24 h (-want +got):\n%s", diff)
	}
	f.env.Clock.Advance(6 * time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "receivables", rows[0].ID); got.Status != "expired" {
		t.Errorf("row past its 30 h link TTL: %s", got.Status)
	}
}
