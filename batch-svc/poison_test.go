package batchsvc_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	batchsvc "github.com/paylane/paylane/batch-svc"
	"github.com/paylane/paylane/batch-svc/internal/testenv"
	contactstest "github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// rowError is a row error as GET /batches/{id}/errors shows it.
type rowError struct {
	RowIndex   int    `json:"row_index"`
	ExternalID string `json:"external_id"`
	Field      string `json:"field"`
	Message    string `json:"message"`
}

func rowErrors(t *testing.T, svc testenv.Service, tok, id string) []rowError {
	t.Helper()
	var errs struct{ Data []rowError }
	svc.Do(t, http.MethodGet, "/api/v1/batches/"+id+"/errors", tok, nil).JSON(t, &errs)
	return errs.Data
}

// waitFinal submits a contacts batch and waits for its end; it gives up
// after a minute (the batch is retrying rather than failing the row).
func waitFinal(t *testing.T, svc testenv.Service, tok string, items []string) testenv.Header {
	t.Helper()
	id := submitBatch(t, svc, tok, items)
	deadline := time.Now().Add(time.Minute)
	return svc.WaitFor(t, tok, id, func(h testenv.Header) bool {
		if time.Now().After(deadline) {
			t.Fatalf("batch still %s after a minute: %+v", h.Status, h)
		}
		return h.Final()
	})
}

// TestRowTheDownstreamRefusesIsARowError: contacts-svc answers 422 to any
// request holding a row with a NUL. The worker narrows the chunk down to
// that row, which fails with the downstream's field message; the others
// are written, and the batch ends partial_failure at once, not after an
// hour of retries.
func TestRowTheDownstreamRefusesIsARowError(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) { c.RetryFor = time.Hour })
	svc.Contacts.FailWhen(contactstest.Holding(`\u0000`, http.StatusUnprocessableEntity))
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	items := smallItems(10)
	items[3] = `{"external_id":"nul\u0000id","first_name":"N3","phone":"+14155550003"}`
	h := waitFinal(t, svc, tok, items)
	if h.Status != "partial_failure" || h.ProcessedItems != 10 || h.SucceededItems != 9 || h.FailedItems != 1 || h.FailureReason != nil {
		t.Fatalf("header = %+v", h)
	}
	want := []rowError{{RowIndex: 3, ExternalID: "nul\uFFFDid", Field: "external_id", Message: "The external id is invalid."}}
	if diff := cmp.Diff(want, rowErrors(t, svc, tok, h.ID)); diff != "" {
		t.Errorf("row errors (-want +got):\n%s", diff)
	}
	written := svc.Contacts.Writes(h.ID, 10)
	for i, n := range written {
		if want := map[bool]int{true: 0, false: 1}[i == 3]; n != want {
			t.Errorf("row %d written %d times, want %d", i, n, want)
		}
	}
}

// TestRowTheDownstreamFailsOnIsARowError: contacts-svc answers 500 to any
// request holding one poisoned row. The chunk is split down to that row,
// which fails (item: "The item could not be processed."); the others are
// written.
func TestRowTheDownstreamFailsOnIsARowError(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) { c.RetryFor = time.Hour })
	svc.Contacts.FailWhen(contactstest.Holding(`poison`, http.StatusInternalServerError))
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	items := smallItems(8)
	items[0] = `{"external_id":"poison","phone":"+14155550000"}`
	h := waitFinal(t, svc, tok, items)
	if h.Status != "partial_failure" || h.ProcessedItems != 8 || h.SucceededItems != 7 || h.FailedItems != 1 || h.FailureReason != nil {
		t.Fatalf("header = %+v", h)
	}
	want := []rowError{{RowIndex: 0, ExternalID: "poison", Field: "item", Message: "The item could not be processed."}}
	if diff := cmp.Diff(want, rowErrors(t, svc, tok, h.ID)); diff != "" {
		t.Errorf("row errors (-want +got):\n%s", diff)
	}
}

// TestDownstreamFailingEveryRowIsRetried: a 500 for every row is the
// downstream failing, not the rows: no row error; the chunk is retried and
// the batch fails after the retry bound.
func TestDownstreamFailingEveryRowIsRetried(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) { c.RetryFor = 300 * time.Millisecond })
	svc.Contacts.SetStatus(http.StatusInternalServerError)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	h := waitFinal(t, svc, tok, smallItems(3))
	if h.Status != "failed" || h.FailedItems != 0 || h.ProcessedItems != 0 || h.FailureReason == nil ||
		!strings.Contains(*h.FailureReason, "did not answer") {
		t.Fatalf("header = %+v", h)
	}
	if errs := rowErrors(t, svc, tok, h.ID); len(errs) != 0 {
		t.Errorf("row errors = %+v, want none", errs)
	}
}

// TestReceivableTheDownstreamFailsOnIsARowError: the same through
// transactions-svc's bulk create: a receivable it answers 500 for is that
// row's error, the others are created.
func TestReceivableTheDownstreamFailsOnIsARowError(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) { c.RetryFor = time.Hour })
	svc.Txns.FailWhen(transactionstest.Holding("poison", http.StatusInternalServerError))
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-receivable", "api:view-any-receivable")
	items := `[{"amount":100},{"amount":200},{"amount":300,"description":"poison"},{"amount":400},{"amount":500}]`
	var env struct{ Data testenv.Header }
	r := svc.Do(t, http.MethodPost, "/api/v1/receivables/batch", tok, `{"items":`+items+`}`)
	if r.Status != http.StatusAccepted {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	r.JSON(t, &env)
	deadline := time.Now().Add(time.Minute)
	h := svc.WaitFor(t, tok, env.Data.ID, func(h testenv.Header) bool {
		if time.Now().After(deadline) {
			t.Fatalf("batch still %s after a minute", h.Status)
		}
		return h.Final()
	})
	if h.Status != "partial_failure" || h.SucceededItems != 4 || h.FailedItems != 1 || h.FailureReason != nil {
		t.Fatalf("header = %+v", h)
	}
	want := []rowError{{RowIndex: 2, Field: "item", Message: "The item could not be processed."}}
	if diff := cmp.Diff(want, rowErrors(t, svc, tok, h.ID)); diff != "" {
		t.Errorf("row errors (-want +got):\n%s", diff)
	}
}
