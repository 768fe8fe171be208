package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// BenchmarkBulkCreate500NewContacts measures one chunk as batch-svc sends
// it: 500 receivables, each with a new contact, end to end (decoding, the
// contacts-svc bulk upsert over HTTP, the write transaction).
func BenchmarkBulkCreate500NewContacts(b *testing.B) {
	e := testenv.New(b)
	tenant := ids.New()
	token := e.Token(b, tenant)
	n := 0
	chunk := func() string {
		items := make([]string, 500)
		for i := range items {
			n++
			items[i] = fmt.Sprintf(`{"contact":{"external_id":"crm-%d","first_name":"Ada","last_name":"Lovelace","phone":"+1415%07d"},`+
				`"external_id":"inv-%d","amount":%d,"description":"Invoice %d"}`, n, 2000000+n, n, 1000+n%5000, n)
		}
		return bulkRequest(ids.New(), "", items...)
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		body := chunk()
		b.StartTimer()
		r := e.Do(b, http.MethodPost, "/internal/v1/receivables/bulk-create", token, body)
		if r.Status != http.StatusOK || strings.Contains(string(r.Body), `"failed"`) {
			b.Fatalf("chunk: %d %.300s", r.Status, r.Body)
		}
	}
}

// BenchmarkBulkCreate500KnownContacts measures a chunk of 500 new
// receivables whose contacts exist already (found by external id, read
// back from contacts-svc for the SMS recipient).
func BenchmarkBulkCreate500KnownContacts(b *testing.B) {
	benchResubmit(b, func(i int) string {
		return fmt.Sprintf(`{"contact":{"external_id":"crm-%d","first_name":"Ada","phone":"+1415%07d"},"amount":%d}`, i, 2000000+i, 1000+i)
	}, `"failed"`)
}

// BenchmarkBulkCreate500Updates measures a resubmitted chunk: 500 rows
// whose external ids name pending receivables, updated by the PUT rules.
func BenchmarkBulkCreate500Updates(b *testing.B) {
	benchResubmit(b, func(i int) string {
		return fmt.Sprintf(`{"contact":{"external_id":"crm-%d","phone":"+1415%07d"},"external_id":"inv-%d","amount":%d}`, i, 2000000+i, i, 1000+i)
	}, `"failed"`, `"created"`)
}

// benchResubmit posts a chunk of the 500 items that item makes once, then
// measures posting it again under a new batch id; a resubmitted chunk
// fails the benchmark unless it answers 200 without any of refused in its
// body.
func benchResubmit(b *testing.B, item func(i int) string, refused ...string) {
	b.Helper()
	e := testenv.New(b)
	tenant := ids.New()
	token := e.Token(b, tenant)
	items := make([]string, 500)
	for i := range items {
		items[i] = item(i)
	}
	if r := e.Do(b, http.MethodPost, "/internal/v1/receivables/bulk-create", token, bulkRequest(ids.New(), "", items...)); r.Status != http.StatusOK {
		b.Fatalf("first chunk: %d", r.Status)
	}
	b.ResetTimer()
	for b.Loop() {
		r := e.Do(b, http.MethodPost, "/internal/v1/receivables/bulk-create", token, bulkRequest(ids.New(), "", items...))
		failed := r.Status != http.StatusOK
		for _, s := range refused {
			failed = failed || strings.Contains(string(r.Body), s)
		}
		if failed {
			b.Fatalf("chunk: %d %.300s", r.Status, r.Body)
		}
	}
}
