package devstack

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
)

// TestBatchEndToEnd submits a contacts batch through the real HTTPS gateway
// to batch-svc, which writes it through contacts-svc: a row with a bad phone
// fails, a repeated external id updates the contact its earlier row
// created. The header ends partial_failure, the errors list names the bad
// row, the contact reads back as the last row made it, and the summary
// event reaches a webhook receiver. Then a receivables batch goes through
// transactions-svc the same way, creating an item's contact.
func TestBatchEndToEnd(t *testing.T) {
	stack, e := startWithClient(t)
	limit := noRateLimit // the polling below must not meet the per-token limit
	if _, err := e.admin.UpdateTenant(context.Background(), stack.info.DemoTenantID, client.TenantInput{
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("raising the demo tenant's request limit: %v", err)
	}
	rc := newWHReceiver(t, filepath.Join(stack.info.Root, "tls"))
	r := e.whSend(t, http.MethodPost, "/api/v1/webhook-endpoints", map[string]any{
		"name": "batch receiver", "url": rc.url, "subscribed_events": []string{"contact.batch.completed"},
	})
	e.expectStatus(t, r, http.StatusCreated)

	r = e.whSend(t, http.MethodPost, "/api/v1/contacts/batch", map[string]any{"items": []map[string]any{
		{"external_id": "batch-e2e-1", "first_name": "Ada", "phone": "+14155550191"},
		{"external_id": "batch-e2e-2", "first_name": "Bad", "phone": "not a phone"},
		{"external_id": "batch-e2e-1", "first_name": "Augusta", "phone": "+14155550191"},
	}})
	e.expectStatus(t, r, http.StatusAccepted)
	var submitted struct{ Data batchHeader }
	whDecode(t, r.body, &submitted)
	id := submitted.Data.ID

	h := e.waitForBatch(t, id)
	if h.Status != "partial_failure" || h.ProcessedItems != 3 || h.SucceededItems != 2 || h.FailedItems != 1 ||
		h.Links.Self != e.info.GatewayURL+"/api/v1/batches/"+id {
		t.Errorf("final header %+v", h)
	}

	r = e.get(t, "/api/v1/batches/"+id+"/errors", e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	var errs struct {
		Data []struct {
			RowIndex   int    `json:"row_index"`
			ExternalID string `json:"external_id"`
			Field      string `json:"field"`
			Message    string `json:"message"`
		} `json:"data"`
	}
	whDecode(t, r.body, &errs)
	if len(errs.Data) == 0 || errs.Data[0].RowIndex != 1 || errs.Data[0].ExternalID != "batch-e2e-2" || errs.Data[0].Field != "phone" {
		t.Errorf("errors %+v, want row 1's phone", errs.Data)
	}

	r = e.get(t, "/api/v1/contacts?external_id=batch-e2e-1", e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	var contacts struct {
		Data []struct {
			ID        string `json:"id"`
			FirstName string `json:"first_name"`
			Phone     string `json:"phone"`
		} `json:"data"`
	}
	whDecode(t, r.body, &contacts)
	if len(contacts.Data) != 1 || contacts.Data[0].FirstName != "Augusta" || contacts.Data[0].Phone != "+14155550191" {
		t.Fatalf("contacts with external id batch-e2e-1: %+v", contacts.Data)
	}
	r = e.get(t, "/api/v1/contacts/"+contacts.Data[0].ID, e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)

	got := rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.batch.completed" && b.Data.ID == id })
	var ev struct {
		Data batchHeader `json:"data"`
	}
	whDecode(t, got.raw, &ev)
	if ev.Data.Status != "partial_failure" || ev.Data.FailedItems != 1 {
		t.Errorf("contact.batch.completed data %+v", ev.Data)
	}

	// A receivables batch goes through transactions-svc, which finds or
	// creates each item's contact by external id.
	r = e.whSend(t, http.MethodPost, "/api/v1/receivables/batch", map[string]any{"items": []map[string]any{
		{"amount": 4200, "description": "Order 1", "contact": map[string]any{"external_id": "batch-e2e-1", "phone": "+14155550191"}},
		{"amount": 1500, "description": "Order 2", "contact": map[string]any{"external_id": "batch-e2e-3", "first_name": "Grace", "phone": "+14155550193"}},
		{"amount": -5, "description": "Order 3", "contact": map[string]any{"external_id": "batch-e2e-4", "phone": "+14155550194"}},
	}})
	e.expectStatus(t, r, http.StatusAccepted)
	whDecode(t, r.body, &submitted)
	rec := e.waitForBatch(t, submitted.Data.ID)
	if rec.Status != "partial_failure" || rec.SucceededItems != 2 || rec.FailedItems != 1 {
		t.Errorf("receivables batch %+v", rec)
	}
	r = e.get(t, "/api/v1/batches/"+rec.ID+"/errors", e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	whDecode(t, r.body, &errs)
	if len(errs.Data) == 0 || errs.Data[0].RowIndex != 2 || errs.Data[0].Field != "amount" {
		t.Errorf("receivables batch errors %+v, want row 2's amount", errs.Data)
	}
	r = e.get(t, "/api/v1/contacts?external_id=batch-e2e-3", e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	whDecode(t, r.body, &contacts)
	if len(contacts.Data) != 1 || contacts.Data[0].FirstName != "Grace" {
		t.Errorf("contact created by the receivables batch: %+v", contacts.Data)
	}
}

// waitForBatch polls the batch header until it is final.
func (e *e2e) waitForBatch(t *testing.T, id string) batchHeader {
	t.Helper()
	var h batchHeader
	whWaitUntil(t, func() bool {
		r := e.get(t, "/api/v1/batches/"+id, e.info.DemoToken)
		e.expectStatus(t, r, http.StatusOK)
		var env struct{ Data batchHeader }
		whDecode(t, r.body, &env)
		h = env.Data
		return h.Status == "completed" || h.Status == "partial_failure" || h.Status == "failed"
	})
	return h
}

// batchHeader is a batch header as the e2e test reads it.
type batchHeader struct {
	ID             string          `json:"id"`
	Status         string          `json:"status"`
	ProcessedItems int             `json:"processed_items"`
	SucceededItems int             `json:"succeeded_items"`
	FailedItems    int             `json:"failed_items"`
	Options        json.RawMessage `json:"options"`
	Links          struct {
		Self   string `json:"self"`
		Errors string `json:"errors"`
	} `json:"links"`
}
