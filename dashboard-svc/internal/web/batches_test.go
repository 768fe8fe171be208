package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	batches "github.com/paylane/paylane/batch-svc/client"
	"github.com/paylane/paylane/identity-svc/client/clienttest"
)

// fakeBatches stands in for batch-svc's reads: batches newest first,
// filtered by type and status, row errors per batch; forbid names a type
// whose reads answer 403, as batch-svc answers a token without the type's
// view-any ability. Every call's token and query is recorded.
type fakeBatches struct {
	mu      sync.Mutex
	batches []batches.Batch
	errors  map[string][]batches.RowError
	tokens  []string
	lists   []batches.Filters
	pages   []batches.Page
	forbid  string
}

func newFakeBatches(e *env) *fakeBatches {
	e.batches = &fakeBatches{errors: map[string][]batches.RowError{}}
	return e.batches
}

func batchID(n int) string { return fmt.Sprintf("01JBATCH000000000000000%03d", n) }

// add stores a finished batch of type with failed rows out of total.
func (f *fakeBatches) add(n int, typ string, total, failed int) batches.Batch {
	f.mu.Lock()
	defer f.mu.Unlock()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
	done := at.Add(30 * time.Second)
	b := batches.Batch{ID: batchID(n), Type: typ, Status: batches.StatusCompleted, TotalItems: total, ProcessedItems: total,
		SucceededItems: total - failed, FailedItems: failed, Options: batches.Options{OnDuplicate: "update", SuppressWebhooks: true},
		StartedAt: &at, CompletedAt: &done, CreatedAt: at, UpdatedAt: done}
	if failed > 0 {
		b.Status = batches.StatusPartialFailure
	}
	for i := range failed {
		f.errors[b.ID] = append(f.errors[b.ID], batches.RowError{RowIndex: 3 + 10*i, ExternalID: fmt.Sprintf("ext-%d", i),
			Field: "phone", Message: "The phone field must be a valid phone number."})
	}
	f.batches = append([]batches.Batch{b}, f.batches...)
	return b
}

func (f *fakeBatches) Batches(_ context.Context, token string, q batches.Filters) (*batches.BatchPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens, f.lists = append(f.tokens, token), append(f.lists, q)
	if q.Type != "" && q.Type == f.forbid {
		return nil, &batches.Error{Status: http.StatusForbidden, Code: "forbidden"}
	}
	var match []batches.Batch
	for _, b := range f.batches {
		if (q.Type == "" || b.Type == q.Type) && (q.Status == "" || b.Status == q.Status) {
			match = append(match, b)
		}
	}
	page := max(q.Page, 1)
	from, to := min((page-1)*q.PerPage, len(match)), min(page*q.PerPage, len(match))
	return &batches.BatchPage{Data: match[from:to], Meta: batches.Meta{CurrentPage: page, PerPage: q.PerPage, Total: len(match),
		LastPage: max(1, (len(match)+q.PerPage-1)/q.PerPage)}}, nil
}

func (f *fakeBatches) find(token, id string) (batches.Batch, error) {
	f.tokens = append(f.tokens, token)
	for _, b := range f.batches {
		if b.ID == id {
			if b.Type == f.forbid {
				return b, &batches.Error{Status: http.StatusForbidden, Code: "forbidden"}
			}
			return b, nil
		}
	}
	return batches.Batch{}, &batches.Error{Status: http.StatusNotFound, Code: "resource_not_found"}
}

func (f *fakeBatches) Batch(_ context.Context, token, id string) (*batches.Batch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := f.find(token, id)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

func (f *fakeBatches) Errors(_ context.Context, token, id string, p batches.Page) (*batches.RowErrorPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages = append(f.pages, p)
	if _, err := f.find(token, id); err != nil {
		return nil, err
	}
	rows := f.errors[id]
	from, to := min((p.Page-1)*p.PerPage, len(rows)), min(p.Page*p.PerPage, len(rows))
	return &batches.RowErrorPage{Data: rows[from:to], Meta: batches.Meta{CurrentPage: p.Page, PerPage: p.PerPage, Total: len(rows),
		LastPage: max(1, (len(rows)+p.PerPage-1)/p.PerPage)}}, nil
}

func (f *fakeBatches) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.tokens)
}

func (f *fakeBatches) lastList() batches.Filters {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists[len(f.lists)-1]
}

func TestBatchesList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"sup@example.com", "Sup", "support"}, member{"none@example.com", "None", "auditor"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	e.batches.add(1, batches.TypeContacts, 30, 3)
	for i := 2; i <= 17; i++ {
		e.batches.add(i, batches.TypeReceivables, 10, 0)
	}
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/batches")
	for _, want := range []string{"17 in all", `<option value="payables">Payables</option>`, `<option value="partial_failure">Partial failure</option>`,
		`<a href="/dashboard/batches/` + batchID(17) + `">`, `href="/dashboard/batches?page=2" rel="next"`, "Page 1 of 2", `<th scope="col" class="num">Failed</th>`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("batches page lacks %s", want)
		}
	}
	if got := e.batches.lastList(); got != (batches.Filters{Page: 1, PerPage: 15}) {
		t.Errorf("list filters = %+v", got)
	}
	a = b.open(t, "/dashboard/batches?type=contacts&status=partial_failure")
	for _, want := range []string{`<option value="contacts" selected>Contacts</option>`, `<option value="partial_failure" selected>`,
		`<span class="batch-partial_failure">Partial failure</span>`, `<td data-label="Rows" class="num">30</td>`,
		`<td data-label="Succeeded" class="num">27</td>`, `<td data-label="Failed" class="num">3</td>`, "2 Mar 2026, 10:01 UTC", "2 Mar 2026, 10:01 UTC"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("filtered batches page lacks %s", want)
		}
	}
	if got := e.batches.lastList(); got != (batches.Filters{Type: "contacts", Status: "partial_failure", Page: 1, PerPage: 15}) {
		t.Errorf("list filters = %+v", got)
	}
	a = b.open(t, "/dashboard/batches?type=receivables")
	if !strings.Contains(a.body, `href="/dashboard/batches?page=2&amp;type=receivables" rel="next"`) {
		t.Errorf("the next link drops the filters:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/batches?status=queued")
	if !strings.Contains(a.body, "No batch matches these filters") {
		t.Errorf("empty filtered list:\n%s", a.body)
	}

	b.wantGet(t, "/dashboard/batches?page=3", http.StatusNotFound, "a page past the last")
	before := e.batches.calls()
	for _, q := range []string{"type=invoices", "status=done", "type=%00"} {
		if a := b.get(t, "/dashboard/batches?"+q); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "Choose a") {
			t.Errorf("%s = %d, want 422 with the field's message", q, a.status)
		}
	}
	b.wantGet(t, "/dashboard/batches?page=x", http.StatusNotFound, "malformed page")
	if n := e.batches.calls(); n != before {
		t.Errorf("malformed queries made %d calls to batch-svc", n-before)
	}
	e.batches.mu.Lock()
	for _, tok := range e.batches.tokens {
		if tok != clienttest.UserTokenOf(tenant, owner.ID) {
			t.Errorf("batch-svc called with %q, want the user's internal token", tok)
		}
	}
	e.batches.mu.Unlock()

	// Support reads contacts only: the type filter offers contacts only,
	// and batch-svc's 403 for another type is the dashboard's.
	s := e.signedIn(t, "sup@example.com")
	a = s.open(t, "/dashboard/batches")
	if strings.Contains(a.body, `value="receivables"`) || !strings.Contains(a.body, `value="contacts"`) {
		t.Errorf("support's type filter:\n%s", a.body)
	}
	e.batches.forbid = batches.TypeReceivables
	s.wantGet(t, "/dashboard/batches?type=receivables", http.StatusForbidden, "a type batch-svc refuses")
	n := e.signedIn(t, "none@example.com")
	n.wantGet(t, "/dashboard/batches", http.StatusForbidden, "a role that reads no batches")
	n.wantGet(t, "/dashboard/batches/"+batchID(1), http.StatusForbidden, "a role that reads no batches, detail")
}

func TestBatchesEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"owner@example.com", "Owner", "owner"})
	a := e.signedIn(t, "owner@example.com").open(t, "/dashboard/batches")
	if !strings.Contains(a.body, "No batches yet") {
		t.Errorf("empty batches page:\n%s", a.body)
	}
}

func TestBatchDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"sup@example.com", "Sup", "support"})
	e.batches.add(1, batches.TypeContacts, 300, 30)
	e.batches.add(2, batches.TypeReceivables, 10, 0)
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/batches/"+batchID(1))
	for _, want := range []string{"<h1>Contacts batch</h1>", batchID(1), "<dt>Failed</dt><dd>30</dd>", "<dt>Succeeded</dt><dd>270</dd>",
		"30 in all", `<td data-label="Row" class="num">3</td>`, `<td data-label="Field" class="mono">phone</td>`,
		"The phone field must be a valid phone number.", "ext-0", `href="/dashboard/batches/` + batchID(1) + `?page=2" rel="next"`, "Page 1 of 2"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("batch page lacks %s", want)
		}
	}
	a = b.open(t, "/dashboard/batches/"+batchID(1)+"?page=2")
	if !strings.Contains(a.body, `<td data-label="Row" class="num">293</td>`) || strings.Contains(a.body, `class="num">3</td>`) {
		t.Errorf("page 2 of the row errors:\n%s", a.body)
	}
	e.batches.mu.Lock()
	pages := append([]batches.Page(nil), e.batches.pages...)
	e.batches.mu.Unlock()
	if len(pages) != 2 || pages[0] != (batches.Page{Page: 1, PerPage: 25}) || pages[1] != (batches.Page{Page: 2, PerPage: 25}) {
		t.Errorf("row error pages asked = %+v", pages)
	}
	a = b.open(t, "/dashboard/batches/"+batchID(2))
	if !strings.Contains(a.body, "No row errors: every row of this batch was written.") {
		t.Errorf("a batch without errors:\n%s", a.body)
	}

	calls := e.batches.calls()
	for _, id := range []string{"not-a-ulid", "%00", strings.Repeat("0", 300)} {
		b.wantGet(t, "/dashboard/batches/"+id, http.StatusNotFound, "malformed id "+id)
	}
	b.wantGet(t, "/dashboard/batches/"+batchID(1)+"?page=0", http.StatusNotFound, "page 0")
	if n := e.batches.calls(); n != calls {
		t.Errorf("malformed requests made %d calls to batch-svc", n-calls)
	}
	b.wantGet(t, "/dashboard/batches/"+batchID(99), http.StatusNotFound, "unknown batch")
	b.wantGet(t, "/dashboard/batches/"+batchID(1)+"?page=3", http.StatusNotFound, "a page of row errors past the last")
	e.batches.forbid = batches.TypeReceivables
	e.signedIn(t, "sup@example.com").wantGet(t, "/dashboard/batches/"+batchID(2), http.StatusForbidden, "support opens a receivables batch")
}

func TestOverviewRecentBatches(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"fin@example.com", "Fin", "finance"})
	for i := 1; i <= 7; i++ {
		e.batches.add(i, batches.TypeContacts, 10, i%2)
	}
	a := e.signedIn(t, "fin@example.com").open(t, "/dashboard/overview")
	if !strings.Contains(a.body, "Recent batches") || !strings.Contains(a.body, `href="/dashboard/batches/`+batchID(7)+`"`) ||
		!strings.Contains(a.body, `href="/dashboard/batches/`+batchID(3)+`"`) || strings.Contains(a.body, batchID(2)) {
		t.Errorf("overview's recent batches:\n%s", a.body)
	}
	if got := e.batches.lastList(); got != (batches.Filters{PerPage: 5}) {
		t.Errorf("recent batches asked with %+v", got)
	}
}
