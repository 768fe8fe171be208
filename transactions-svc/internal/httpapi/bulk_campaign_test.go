package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	contactsclient "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
)

// TestBulkCreateUnassignableCampaignFailsRows covers a batch whose
// options.campaign_id stopped being assignable between batch-svc's submit
// check and a chunk: the chunk answers 200 and the rows that would create
// fail on campaign_id (batch-svc ends the batch partial_failure, not
// failed), while an invalid row keeps its own error and an update goes
// ahead. No contact is created for the failed rows, and a retried chunk is
// answered from the record, even once the campaign is usable again.
func TestBulkCreateUnassignableCampaignFailsRows(t *testing.T) {
	t.Parallel()
	const published = `{"name":"R","direction":"receivable","steps":[{"delay_hours":24,"message":"Reminder {{link}}"}]}`
	for _, tc := range []struct {
		name string
		// spoil makes campaign id unassignable after the submit; restore,
		// when set, makes it assignable again.
		spoil, restore func(t *testing.T, f fixture, id string)
		body           string
		publish        bool
	}{
		{name: "archived", body: published, publish: true, spoil: func(t *testing.T, f fixture, id string) {
			expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"R","direction":"receivable","status":"archived"}`), http.StatusOK, "")
		}},
		{name: "deactivated", body: published, publish: true, spoil: func(t *testing.T, f fixture, id string) {
			expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"R","direction":"receivable","is_active":false}`), http.StatusOK, "")
		}, restore: func(t *testing.T, f fixture, id string) {
			expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"R","direction":"receivable","is_active":true}`), http.StatusOK, "")
		}},
		{name: "deleted", body: published, publish: true, spoil: func(t *testing.T, f fixture, id string) {
			expect(t, f.do(t, http.MethodDelete, "/api/v1/campaigns/"+id, ""), http.StatusNoContent, "")
		}},
		{name: "unpublished", body: published},
		{name: "other direction", body: `{"name":"P","direction":"payable"}`, publish: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			inv1 := f.create(t, "receivables", `,"external_id":"inv-1"`)
			camp := f.campaign(t, tc.body, tc.publish)
			if tc.spoil != nil {
				tc.spoil(t, f, camp)
			}
			body := bulkRequest("B", fmt.Sprintf(`,"campaign_id":%q,"emit_events":true`, camp),
				`{"contact":{"external_id":"crm-new","first_name":"Alan","phone":"+14155550150"},"amount":1200}`,
				`{"contact":{"external_id":"cust-1"},"amount":"12"}`,
				`{"contact":{"external_id":"cust-1"},"external_id":"inv-1","amount":999}`,
				fmt.Sprintf(`{"contact_id":%q,"amount":1300,"external_id":"inv-2"}`, f.contact),
				`{"contact":{"external_id":"cust-1"},"external_id":"inv-2","amount":1400}`,
			)
			noCampaign := map[string][]string{"campaign_id": {campaign.MsgNotAssignable}}
			want := []rowOut{
				{RowIndex: 0, Action: "failed", Errors: noCampaign},
				{RowIndex: 1, Action: "failed", Errors: map[string][]string{"amount": {"The amount field must be an integer."}}},
				{RowIndex: 2, Action: "updated", ID: inv1.ID},
				{RowIndex: 3, Action: "failed", Errors: noCampaign},
				{RowIndex: 4, Action: "failed", Errors: noCampaign},
			}
			before := len(f.env.Events(t, f.tenant))
			rows := f.bulk(t, "receivables", body)
			if diff := cmp.Diff(want, rows); diff != "" {
				t.Fatalf("rows (-want +got):\n%s", diff)
			}
			if got := testEventTypes(t, f, before); !cmp.Equal(got, []string{"receivable.updated"}) {
				t.Errorf("events of the chunk %v, want the update's only", got)
			}

			if tc.restore != nil {
				tc.restore(t, f, camp)
			}
			before = len(f.env.Events(t, f.tenant))
			if again := f.bulk(t, "receivables", body); !cmp.Equal(rows, again) {
				t.Errorf("retried chunk answered %+v, want %+v", again, rows)
			}
			if got := testEventTypes(t, f, before); len(got) != 0 {
				t.Errorf("retried chunk wrote events %v", got)
			}
			var list struct {
				Data []item `json:"data"`
			}
			f.do(t, http.MethodGet, "/api/v1/receivables", "").JSON(t, &list)
			if len(list.Data) != 1 || list.Data[0].ID != inv1.ID || list.Data[0].Amount != 999 || list.Data[0].CampaignID != nil {
				t.Errorf("receivables after the chunk and its retry: %+v, want only the updated inv-1", list.Data)
			}
			_, created, err := contactsclient.New(f.env.ContactsURL, nil).FindOrCreate(context.Background(), f.token,
				contactsclient.ContactInput{ExternalID: "crm-new", FirstName: "Alan", Phone: "+14155550150"}, "")
			if err != nil || !created {
				t.Errorf("contact crm-new of a failed row: created now %v, %v; want no earlier contact", created, err)
			}
		})
	}
}

// TestBulkCreateMalformedCampaignID keeps a campaign_id that is not an
// identifier a refused chunk: batch-svc's submit check refuses it, so only
// a broken caller sends it.
func TestBulkCreateMalformedCampaignID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do(t, http.MethodPost, "/internal/v1/receivables/bulk-create",
		bulkRequest("M", `,"campaign_id":"not-an-id"`, `{"contact":{"external_id":"cust-1"},"amount":5}`))
	expect(t, r, http.StatusUnprocessableEntity, "validation_failed")
	var body struct {
		Error struct {
			Details map[string][]string `json:"details"`
		} `json:"error"`
	}
	r.JSON(t, &body)
	if len(body.Error.Details["campaign_id"]) == 0 {
		t.Errorf("malformed campaign_id: %s", r.Body)
	}
}

// testEventTypes returns the types of the tenant's events after the first
// skip.
func testEventTypes(t *testing.T, f fixture, skip int) []string {
	t.Helper()
	var out []string
	for _, e := range f.env.Events(t, f.tenant)[skip:] {
		out = append(out, e.Type)
	}
	return out
}
