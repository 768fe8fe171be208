package batchsvc_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	batchsvc "github.com/paylane/paylane/batch-svc"
	"github.com/paylane/paylane/batch-svc/internal/testenv"
	contactstest "github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
)

// chunkRows counts tenant A's stored chunks of the batch (each holds
// submitted items), in a transaction scoped to the tenant: row-level
// security is forced, even on the owner.
func chunkRows(t *testing.T, svc testenv.Service, id string) int {
	t.Helper()
	ctx := context.Background()
	tx, err := svc.OwnerPool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var n int
	if _, err := tx.Exec(ctx, `SELECT set_config('app.tenant_id', $1, true)`, tenantA); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM batch_chunks WHERE batch_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// submitBatch submits a contacts batch of the given items, which must be
// accepted, and returns its id.
func submitBatch(t *testing.T, svc testenv.Service, tok string, items []string) string {
	t.Helper()
	var env struct{ Data testenv.Header }
	r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[`+strings.Join(items, ",")+`]}`)
	if r.Status != http.StatusAccepted {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	r.JSON(t, &env)
	return env.Data.ID
}

// submitContacts submits a contacts batch of the given items and waits
// until it is final.
func submitContacts(t *testing.T, svc testenv.Service, tok string, items []string) testenv.Header {
	t.Helper()
	return svc.WaitFor(t, tok, submitBatch(t, svc, tok, items), testenv.Header.Final)
}

func smallItems(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"external_id":"x-%d","first_name":"N%d","phone":"+1415555%04d"}`, i, i, i)
	}
	return out
}

func TestChunkTooLargeDownstreamIsSplit(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	svc.Contacts.SetMaxBody(16 << 10) // a 500-item chunk of these items is about 40 KB
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	h := submitContacts(t, svc, tok, smallItems(600))
	if h.Status != "completed" || h.ProcessedItems != 600 || h.SucceededItems != 600 || h.FailedItems != 0 {
		t.Errorf("header = %+v", h)
	}
	once := make([]int, 600)
	for i := range once {
		once[i] = 1
	}
	if diff := cmp.Diff(once, svc.Contacts.Writes(h.ID, 600)); diff != "" {
		t.Errorf("writes per row (-want +got):\n%s", diff)
	}
	if svc.Contacts.Refused() == 0 {
		t.Error("no call was refused as too large: the test does not split")
	}
}

func TestItemTooLargeDownstreamIsARowError(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	svc.Contacts.SetMaxBody(16 << 10)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	items := smallItems(40)
	items[17] = `{"external_id":"big","phone":"+14155550917","custom_fields":{"notes":"` + strings.Repeat("n", 20<<10) + `"}}`
	h := submitContacts(t, svc, tok, items)
	if h.Status != "partial_failure" || h.ProcessedItems != 40 || h.SucceededItems != 39 || h.FailedItems != 1 ||
		h.FailureReason != nil {
		t.Errorf("header = %+v", h)
	}
	want := make([]int, 40)
	for i := range want {
		want[i] = 1
	}
	want[17] = 0
	if diff := cmp.Diff(want, svc.Contacts.Writes(h.ID, 40)); diff != "" {
		t.Errorf("writes per row (-want +got):\n%s", diff)
	}
	errs := rowErrors(t, svc, tok, h.ID)
	if len(errs) != 1 || errs[0].RowIndex != 17 || errs[0].ExternalID != "big" ||
		errs[0].Field != "item" || errs[0].Message != "The item is too large." {
		t.Errorf("errors = %+v", errs)
	}
}

func TestDownstreamDownFailsTheBatchAfterRetryFor(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) { c.RetryFor = 300 * time.Millisecond })
	// The first chunk is written, then contacts-svc answers 503 to everything.
	svc.Contacts.OnWrite(func(contactstest.Call) { svc.Contacts.SetStatus(http.StatusServiceUnavailable) })
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	h := submitContacts(t, svc, tok, smallItems(600))
	if h.Status != "failed" || h.ProcessedItems != 500 || h.SucceededItems != 500 || h.CompletedAt == nil ||
		h.FailureReason == nil {
		t.Fatalf("header = %+v", h)
	}
	if r, want := *h.FailureReason, "The contacts service did not answer for 300ms; rows 500 to 599 may not have been written."; r != want {
		t.Errorf("failure_reason = %q, want %q", r, want)
	}
	var retries int
	for _, c := range svc.Contacts.Calls() {
		if c.BulkUpsert().FirstRowIndex == 500 {
			retries++
		}
	}
	if retries < 2 {
		t.Errorf("chunk 1 sent %d times, want it retried", retries)
	}
	// The batch no longer holds an in-flight slot: with a limit of 1,
	// another submission is accepted.
	one := svc.Token(t, tenantA, authz.Limits{BatchesInFlight: 1}, "api:create-contact")
	if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", one, `{"items":[{"phone":"+14155550100"}]}`); r.Status != http.StatusAccepted {
		t.Errorf("next submission = %d %s", r.Status, r.Body)
	}
	if evs := outboxEvents(t, svc); len(evs) != 1 || evs[0].Data.Status != "failed" {
		t.Errorf("outbox = %+v", evs)
	}
	if n := chunkRows(t, svc, h.ID); n != 0 {
		t.Errorf("%d chunks with items left after the batch failed, want none", n)
	}
}

func TestFinishedBatchKeepsNoItems(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	for _, tt := range []struct {
		name   string
		items  []string
		status string
	}{
		{"completed", smallItems(1201), "completed"},
		{"partial_failure", append(smallItems(3), `{"phone":"bad"}`), "partial_failure"},
	} {
		h := submitContacts(t, svc, tok, tt.items)
		if h.Status != tt.status {
			t.Fatalf("%s: header = %+v", tt.name, h)
		}
		if n := chunkRows(t, svc, h.ID); n != 0 {
			t.Errorf("%s: %d chunks with items left after the batch finished, want none", tt.name, n)
		}
		r := svc.Do(t, http.MethodGet, "/api/v1/batches/"+h.ID+"/errors", tok, nil)
		var errs struct{ Meta struct{ Total int } }
		r.JSON(t, &errs)
		if r.Status != http.StatusOK || errs.Meta.Total != h.FailedItems { // one message per failed row
			t.Errorf("%s: errors = %d %s, want the row errors kept", tt.name, r.Status, r.Body)
		}
	}
}
