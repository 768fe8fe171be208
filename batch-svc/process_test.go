package batchsvc_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
)

// outboxEvents returns the types and data of the outbox's events.
func outboxEvents(t *testing.T, svc testenv.Service) []struct {
	Type string
	Data testenv.Header
} {
	t.Helper()
	rows, err := svc.OwnerPool.Query(context.Background(), `SELECT payload FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []struct {
		Type string
		Data testenv.Header
	}
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type     string         `json:"type"`
			TenantID string         `json:"tenant_id"`
			Data     testenv.Header `json:"data"`
		}
		if err := json.Unmarshal(payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.TenantID != tenantA {
			t.Errorf("event of tenant %s", ev.TenantID)
		}
		out = append(out, struct {
			Type string
			Data testenv.Header
		}{ev.Type, ev.Data})
	}
	return out
}

func TestContactsBatchCompletes(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":`+items(1201)+`}`).JSON(t, &env)
	h := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	if h.Status != "completed" || h.TotalItems != 1201 || h.ProcessedItems != 1201 || h.SucceededItems != 1201 ||
		h.FailedItems != 0 || h.StartedAt == nil || h.CompletedAt == nil || h.FailureReason != nil {
		t.Errorf("header = %+v", h)
	}
	var firsts []int
	for _, call := range svc.Contacts.Calls() {
		c := call.BulkUpsert()
		if len(c.Items) > 500 || c.EmitEvents || c.OnDuplicate != "update" || c.BatchID != h.ID {
			t.Errorf("call %+v", c)
		}
		firsts = append(firsts, c.FirstRowIndex)
	}
	if diff := cmp.Diff([]int{0, 500, 1000}, firsts); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	evs := outboxEvents(t, svc)
	if len(evs) != 1 || evs[0].Type != "contact.batch.completed" || evs[0].Data.ID != h.ID ||
		evs[0].Data.Status != "completed" || evs[0].Data.SucceededItems != 1201 {
		t.Errorf("outbox = %+v", evs)
	}
	// The finished batch left the queue; a batch another replica holds
	// (its lease running) counts as leased.
	if _, err := svc.OwnerPool.Exec(context.Background(), `INSERT INTO batch_queue (batch_id, tenant_id, lease_until, lease_token)
		VALUES ('01JD3XKQ5V8Y2W4Z6A7B8C9DEF', $1, now() + interval '1 hour', 'held-elsewhere')`, tenantA); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + svc.Addrs.Internal + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`batch_batches_finished_total{status="completed",type="contacts"} 1`,
		`batch_rows_total{outcome="succeeded",type="contacts"} 1201`, `batch_chunk_write_duration_seconds_count{type="contacts"} 3`,
		`batch_queue_depth{state="waiting"} 0`, `batch_queue_depth{state="leased"} 1`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestContactsBatchPartialFailure(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	body := `{"items":[
		{"external_id":"a","phone":"+14155550100"},
		{"external_id":"b","phone":"bad"},
		{"external_id":"a","phone":"+14155550101"},
		{"phone":""}
	],"options":{"on_duplicate":"fail"}}`
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, body).JSON(t, &env)
	h := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	if h.Status != "partial_failure" || h.ProcessedItems != 4 || h.SucceededItems != 1 || h.FailedItems != 3 {
		t.Errorf("header = %+v", h)
	}
	var errs struct {
		Data []rowError
		Meta struct{ Total int }
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches/"+h.ID+"/errors?per_page=2", tok, nil).JSON(t, &errs)
	type row struct {
		RowIndex          int
		ExternalID, Field string
	}
	var got []row
	for _, e := range errs.Data {
		got = append(got, row{e.RowIndex, e.ExternalID, e.Field})
	}
	// One message per field, as contacts-svc answers: "bad" is not a phone
	// number, "" is none.
	want := []row{{1, "b", "phone"}, {2, "a", "external_id"}}
	if diff := cmp.Diff(want, got); diff != "" || errs.Meta.Total != 3 {
		t.Errorf("errors (-want +got):\n%s total %d", diff, errs.Meta.Total)
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches/"+h.ID+"/errors?per_page=2&page=2", tok, nil).JSON(t, &errs)
	if len(errs.Data) != 1 || errs.Data[0].RowIndex != 3 || errs.Data[0].Message == "" {
		t.Errorf("page 2 = %+v", errs.Data)
	}
	if evs := outboxEvents(t, svc); len(evs) != 1 || evs[0].Data.Status != "partial_failure" {
		t.Errorf("outbox = %+v", evs)
	}
}

func TestEveryRowFailingIsPartialFailure(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"bad"},{}]}`).JSON(t, &env)
	if h := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final); h.Status != "partial_failure" || h.FailedItems != 2 {
		t.Errorf("header = %+v", h)
	}
}

func TestPerRecordWebhooksEmitNoSummary(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok,
		`{"items":[{"phone":"+14155550100"}],"options":{"suppress_webhooks":false}}`).JSON(t, &env)
	if h := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final); h.Status != "completed" {
		t.Errorf("header = %+v", h)
	}
	calls := svc.Contacts.Calls()
	if len(calls) != 1 || !calls[0].BulkUpsert().EmitEvents {
		t.Errorf("calls = %+v, want one with emit_events", calls)
	}
	if evs := outboxEvents(t, svc); len(evs) != 0 {
		t.Errorf("outbox = %+v, want no summary event", evs)
	}
}

// TestPermanentDownstreamRefusalFailsTheBatch: a refusal of the batch
// itself (403: the service token may not write) fails the batch; a
// refusal of rows is row errors (poison_test.go).
func TestPermanentDownstreamRefusalFailsTheBatch(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	svc.Contacts.SetStatus(http.StatusForbidden)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`).JSON(t, &env)
	h := svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	if h.Status != "failed" || h.FailureReason == nil || h.CompletedAt == nil || h.ProcessedItems != 0 {
		t.Fatalf("header = %+v", h)
	}
	if r := *h.FailureReason; r != "The contacts service refused rows 0 to 0 of the batch." {
		t.Errorf("failure_reason = %q", r)
	}
	if evs := outboxEvents(t, svc); len(evs) != 1 || evs[0].Data.Status != "failed" {
		t.Errorf("outbox = %+v", evs)
	}
}
