package batchsvc_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/transactions-svc/client"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// receivables renders n receivable items; every failEvery-th has no amount.
func receivables(n, failEvery int) string {
	parts := make([]string, n)
	for i := range parts {
		amount := 1000
		if failEvery > 0 && i%failEvery == failEvery-1 {
			amount = 0
		}
		parts[i] = fmt.Sprintf(`{"amount":%d,"contact":{"external_id":"c-%d","phone":"+1415555%04d"}}`, amount, i, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestSubmitChecksTheCampaign(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{BatchesInFlight: 100, BatchSubmissionsPerMinute: 100}, "api:create-receivable", "api:create-payable")
	for _, c := range []transactionstest.Campaign{
		{ID: "C5", Direction: "receivable", Steps: 5},
		{ID: "P5", Direction: "payable", Steps: 5},
		{ID: "P3", Direction: "payable", Steps: 3},
		{ID: "P9", Direction: "payable", Steps: 9, Inactive: true},
	} {
		svc.Txns.AddCampaign(tenantA, c)
	}
	for _, tt := range []struct {
		name, path, options string
		items               int
		status              int
		field               string
	}{
		{"2,000 items × 5 steps", "/api/v1/receivables/batch", `{"campaign_id":"C5"}`, 2000, 202, ""},
		{"2,001 items × 5 steps unacknowledged", "/api/v1/receivables/batch", `{"campaign_id":"C5"}`, 2001, 422, "options.acknowledge_messaging_volume"},
		{"2,001 items × 5 steps acknowledged", "/api/v1/payables/batch", `{"campaign_id":"P5","acknowledge_messaging_volume":true}`, 2001, 202, ""},
		{"auto-assign 2,001 × 5 steps, the most of the direction's active campaigns", "/api/v1/payables/batch", `{"auto_assign_campaign":true}`, 2001, 422, "options.acknowledge_messaging_volume"},
		{"auto-assign 2,000 × 5 steps: the inactive 9-step campaign does not count", "/api/v1/payables/batch", `{"auto_assign_campaign":true}`, 2000, 202, ""},
		{"unknown campaign", "/api/v1/receivables/batch", `{"campaign_id":"nope"}`, 1, 422, "options.campaign_id"},
		{"a campaign of the other direction", "/api/v1/receivables/batch", `{"campaign_id":"P5"}`, 1, 422, "options.campaign_id"},
		{"5,001 receivables", "/api/v1/receivables/batch", `{}`, 5001, 422, "items"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := svc.Do(t, http.MethodPost, tt.path, tok, `{"items":`+receivables(tt.items, 0)+`,"options":`+tt.options+`}`)
			if r.Status != tt.status || (tt.field != "" && !strings.Contains(string(r.Body), `"`+tt.field+`"`)) {
				t.Errorf("status %d %s, want %d naming %q", r.Status, r.Body, tt.status, tt.field)
			}
		})
	}
}

func TestReceivablesAndPayablesBatches(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-receivable", "api:create-payable",
		"api:view-any-receivable", "api:view-any-payable")
	svc.Txns.AddCampaign(tenantA, transactionstest.Campaign{ID: "C5", Direction: "receivable", Steps: 5})
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/receivables/batch", tok,
		`{"items":`+receivables(600, 0)+`,"options":{"campaign_id":"C5","on_duplicate":"skip"}}`).JSON(t, &env)
	rec := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	if rec.Status != "completed" || rec.Type != "receivables" || rec.SucceededItems != 600 {
		t.Errorf("receivables batch = %+v", rec)
	}
	svc.Do(t, http.MethodPost, "/api/v1/payables/batch", tok,
		`{"items":`+receivables(10, 5)+`,"options":{"suppress_webhooks":false}}`).JSON(t, &env)
	pay := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	if pay.Status != "partial_failure" || pay.SucceededItems != 8 || pay.FailedItems != 2 {
		t.Errorf("payables batch = %+v", pay)
	}
	var paths []string
	var calls []client.BulkCreateRequest
	for _, r := range svc.Txns.Requests() {
		if strings.HasSuffix(r.Path, "/bulk-create") {
			paths, calls = append(paths, r.Path), append(calls, r.BulkCreate())
		}
	}
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	for i, c := range calls[:2] {
		if paths[i] != "/internal/v1/receivables/bulk-create" || c.Direction != "receivable" || c.CampaignID != "C5" ||
			c.OnDuplicate != "skip" || c.EmitEvents || c.BatchID != rec.ID {
			t.Errorf("receivables call %s %+v", paths[i], c)
		}
	}
	if c := calls[2]; c.Direction != "payable" || !c.EmitEvents || c.CampaignID != "" || c.FirstRowIndex != 0 {
		t.Errorf("payables call = %+v", c)
	}
	evs := outboxEvents(t, svc)
	if len(evs) != 1 || evs[0].Type != "receivable.batch.completed" || evs[0].Data.ID != rec.ID {
		t.Errorf("outbox = %+v (payables asked for per-record webhooks: no summary)", evs)
	}
	errs := rowErrors(t, svc, tok, pay.ID)
	if len(errs) != 2 || errs[0].RowIndex != 4 || errs[1].RowIndex != 9 || errs[0].Field != "amount" {
		t.Errorf("errors = %+v", errs)
	}
	// Readers of contacts batches only do not see these.
	if r := svc.Do(t, http.MethodGet, "/api/v1/batches/"+rec.ID, svc.Token(t, tenantA, authz.Limits{}, "api:view-any-contact"), nil); r.Status != http.StatusForbidden {
		t.Errorf("contacts reader GET receivables batch = %d", r.Status)
	}
}
