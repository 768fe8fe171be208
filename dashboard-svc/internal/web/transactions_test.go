package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client/clienttest"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// fakeTransactions stands in for transactions-svc: receivables and
// payables kept by id, lists filtered by status and paged, and the calls'
// tokens and Idempotency-Keys recorded. A cancel of a paid item is refused
// with 409 as the service does; a list by external_id "refused" answers
// 422 naming external_id.
type fakeTransactions struct {
	mu       sync.Mutex
	items    map[string]transactions.Item
	dirs     map[string]string
	order    []string // creation order
	activity map[string]transactions.Activity
	sums     map[string][]transactions.StatusSum // by direction
	tokens   []string
	keys     []string
	lists    []transactions.ListOptions
	since    []time.Time
}

func newFakeTransactions() *fakeTransactions {
	return &fakeTransactions{items: map[string]transactions.Item{}, dirs: map[string]string{},
		activity: map[string]transactions.Activity{}, sums: map[string][]transactions.StatusSum{}}
}

func (f *fakeTransactions) add(direction string, it transactions.Item) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items[it.ID], f.dirs[it.ID] = it, direction
	f.order = append(f.order, it.ID)
}

func (f *fakeTransactions) seen(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, token)
}

func notFound() error {
	return &transactions.Error{Status: http.StatusNotFound, Code: "resource_not_found", Message: "Not found."}
}

func (f *fakeTransactions) Summary(_ context.Context, token, direction string, since time.Time) ([]transactions.StatusSum, error) {
	f.seen(token)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.since = append(f.since, since)
	return f.sums[direction], nil
}

func (f *fakeTransactions) List(_ context.Context, token, direction string, opts transactions.ListOptions) (*transactions.ItemPage, error) {
	f.seen(token)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, opts)
	if opts.ExternalID == "refused" {
		return nil, &transactions.Error{Status: 422, Code: "validation_failed", Message: "The given data was invalid.",
			Details: []byte(`{"external_id":["The external id is not one the service accepts."]}`)}
	}
	var match []transactions.Item
	for _, id := range slices.Backward(f.order) {
		it := f.items[id]
		if f.dirs[id] == direction && (opts.Status == "" || it.Status == opts.Status) {
			match = append(match, it)
		}
	}
	p := &transactions.ItemPage{Page: opts.Page, PerPage: opts.PerPage, Total: len(match), LastPage: max(1, (len(match)+opts.PerPage-1)/opts.PerPage)}
	from := (opts.Page - 1) * opts.PerPage
	if from < len(match) {
		p.Items = match[from:min(len(match), from+opts.PerPage)]
	}
	return p, nil
}

func (f *fakeTransactions) Item(_ context.Context, token, direction, id string) (*transactions.Item, error) {
	f.seen(token)
	f.mu.Lock()
	defer f.mu.Unlock()
	it, ok := f.items[id]
	if !ok || f.dirs[id] != direction {
		return nil, notFound()
	}
	return &it, nil
}

func (f *fakeTransactions) Activity(_ context.Context, token, direction, id string) (*transactions.Activity, error) {
	f.seen(token)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.items[id]; !ok || f.dirs[id] != direction {
		return nil, notFound()
	}
	a := f.activity[id]
	return &a, nil
}

func (f *fakeTransactions) Act(_ context.Context, token, direction, id, action, key string) (*transactions.Item, error) {
	f.seen(token)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, key)
	it, ok := f.items[id]
	if !ok || f.dirs[id] != direction {
		return nil, notFound()
	}
	switch {
	case action == transactions.ActionCancel && it.Status == "paid":
		return nil, &transactions.Error{Status: http.StatusConflict, Code: "conflict", Message: "A paid receivable cannot be cancelled."}
	case action == transactions.ActionCancel:
		it.Status = "cancelled"
	case action == transactions.ActionExpire:
		it.Status = "expired"
	}
	f.items[id] = it
	return &it, nil
}

// summaryCalls are the since of each Summary call.
func (f *fakeTransactions) summaryCalls() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.since)
}

// calls is how many calls the fake answered.
func (f *fakeTransactions) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.tokens)
}

// wantTokens fails unless every call carried token.
func (f *fakeTransactions) wantTokens(t *testing.T, token string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tokens) == 0 {
		t.Fatal("transactions-svc was not called")
	}
	for _, got := range f.tokens {
		if got != token {
			t.Fatalf("called with token %q, want the user's internal token %q", got, token)
		}
	}
}

func (f *fakeTransactions) status(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.items[id].Status
}

// txID is the n-th test id (a valid ULID).
func txID(n int) string { return fmt.Sprintf("01JTXN%020d", n) }

func ref(s string) *string { return &s }

// seedTransactions adds receivables 1 (paid, INV-1, $42.00, Ada), 2
// (pending, Grace) and 3 (pending, €7.50, Grace), payable 9 (Ada), and
// their contacts.
func seedTransactions(e *env) time.Time {
	created := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	e.txns.add("receivable", transactions.Item{ID: txID(1), TransactionID: txID(101), ContactID: txID(201), ExternalID: ref("INV-1"),
		Amount: 4200, Currency: "USD", Status: "paid", DueDate: ref("2026-12-01"), CreatedAt: created, UpdatedAt: created})
	e.txns.add("receivable", transactions.Item{ID: txID(2), TransactionID: txID(102), ContactID: txID(202),
		Amount: 100, Currency: "USD", Status: "pending", CreatedAt: created, UpdatedAt: created})
	e.txns.add("receivable", transactions.Item{ID: txID(3), TransactionID: txID(103), ContactID: txID(202), ExternalID: ref("INV-3"),
		Amount: 750, Currency: "EUR", Status: "pending", CreatedAt: created, UpdatedAt: created})
	e.txns.add("payable", transactions.Item{ID: txID(9), TransactionID: txID(109), ContactID: txID(201), ExternalID: ref("PAY-9"),
		Amount: 120000, Currency: "USD", Status: "pending", CreatedAt: created, UpdatedAt: created})
	e.contacts.add(txID(201), "Ada", "Lovelace", "+14155550101", "", false)
	e.contacts.add(txID(202), "Grace", "Hopper", "+14155550102", "", true) // soft-deleted: still named
	sent := created.Add(time.Minute)
	e.txns.activity[txID(2)] = transactions.Activity{
		Transitions: []transactions.Transition{{To: "draft", At: created}, {From: "draft", To: "pending", At: sent}},
		Messages:    []transactions.Message{{ID: "N1", Kind: "payment_link", Status: "delivered", RequestedAt: sent, SentAt: &sent, UpdatedAt: &sent}},
	}
	return created
}

func TestReceivablesList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"fin@example.com", "Fin", "finance"}, member{"sup@example.com", "Sup", "support"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	seedTransactions(e)
	b := e.signedIn(t, "owner@example.com")

	a := b.open(t, "/dashboard/receivables")
	for _, want := range []string{`<a href="/dashboard/receivables/` + txID(1) + `">INV-1</a>`, "$42.00", "€7.50", ">Paid</span>",
		"Due 1 Dec 2026", "20 Nov 2026, 09:30 UTC", `<label for="f-status">`, "3 in all", "Ada Lovelace", "Grace Hopper"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	if strings.Contains(a.body, "PAY-9") {
		t.Error("the receivables list shows a payable")
	}
	if i, j := strings.Index(a.body, "INV-3"), strings.Index(a.body, "INV-1"); i > j {
		t.Error("the list is not newest first")
	}
	// The page's contacts are named from one read by ids, each id once.
	e.contacts.mu.Lock()
	reads, shows := e.contacts.byIDs, e.contacts.shows
	e.contacts.mu.Unlock()
	if len(reads) != 1 || len(shows) != 0 || !slices.Equal(slices.Sorted(slices.Values(reads[0])), []string{txID(201), txID(202)}) {
		t.Errorf("contacts read by ids %v and one by one %v; want one read of both ids", reads, shows)
	}

	a = b.open(t, "/dashboard/receivables?status=paid&reference=INV-1&since=2026-11-01")
	if !strings.Contains(a.body, `<option value="paid" selected>`) || !strings.Contains(a.body, `value="INV-1"`) || strings.Contains(a.body, "INV-3") {
		t.Errorf("filtered list does not keep its filters or filter:\n%s", a.body)
	}
	got := e.txns.lists[len(e.txns.lists)-1]
	if got.Status != "paid" || got.ExternalID != "INV-1" || got.CreatedSince == nil || !got.CreatedSince.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("list options %+v", got)
	}

	// Malformed filters are 422 with the field's message, and never reach
	// transactions-svc.
	before := e.txns.calls()
	for _, q := range []string{"status=lost", "contact=" + strings.Repeat("x", 300), "since=yesterday", "page=0", "page=abc",
		"reference=%00INV", "contact=01JRECEIVABLE%00"} {
		a := b.get(t, "/dashboard/receivables?"+q)
		if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, `class="field-error"`) && !strings.Contains(a.body, `class="error"`) {
			t.Errorf("%s: %d, want 422 with the message", q, a.status)
		}
	}
	if e.txns.calls() != before {
		t.Error("a malformed filter reached transactions-svc")
	}
	a = b.get(t, "/dashboard/receivables?reference=refused")
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "not one the service accepts") || !strings.Contains(a.body, `id="f-reference-error"`) {
		t.Errorf("a filter the service refuses: %d\n%s", a.status, a.body)
	}
	a = b.open(t, "/dashboard/receivables?status=failed")
	if !strings.Contains(a.body, "No receivables match these filters") {
		t.Errorf("empty filtered list:\n%s", a.body)
	}
	e.txns.wantTokens(t, clienttest.UserTokenOf(tenant, owner.ID))

	// Finance lists receivables but may not open one (no view-receivable
	// in the fake role); support lists none.
	f := e.signedIn(t, "fin@example.com")
	if a := f.open(t, "/dashboard/receivables"); strings.Contains(a.body, `href="/dashboard/receivables/`+txID(1)) ||
		strings.Contains(a.body, "Ada Lovelace") || !strings.Contains(a.body, txID(201)) {
		t.Error("finance gets links to pages it may not open, or contacts' names its fake role may not read")
	}
	f.wantGet(t, "/dashboard/receivables/"+txID(1), http.StatusForbidden, "finance GET a receivable")
	f.wantGet(t, "/dashboard/payables", http.StatusForbidden, "finance GET payables")
	s := e.signedIn(t, "sup@example.com")
	s.wantGet(t, "/dashboard/receivables", http.StatusForbidden, "support GET receivables")
}

var nextPattern = regexp.MustCompile(`<a href="([^"]+)" rel="next">Next</a>`)

func TestReceivablesPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	for i := range 30 {
		e.txns.add("receivable", transactions.Item{ID: txID(i + 1), ContactID: txID(200), ExternalID: ref(fmt.Sprintf("R-%02d", i+1)),
			Amount: 100, Currency: "USD", Status: "pending", CreatedAt: time.Now()})
	}
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/receivables?status=pending")
	m := nextPattern.FindStringSubmatch(a.body)
	if m == nil || !strings.Contains(a.body, "Page 1 of 2") || !strings.Contains(a.body, "R-30") || strings.Contains(a.body, "R-05<") {
		t.Fatalf("first page:\n%s", a.body)
	}
	next := strings.ReplaceAll(m[1], "&amp;", "&")
	if next != "/dashboard/receivables?page=2&status=pending" {
		t.Errorf("next link %q does not keep the filter", next)
	}
	a = b.open(t, next)
	if !strings.Contains(a.body, "R-05<") || !strings.Contains(a.body, `rel="prev">Previous</a>`) || nextPattern.MatchString(a.body) {
		t.Errorf("second page:\n%s", a.body)
	}

	if a := b.open(t, "/dashboard/receivables?status=pending&page=9"); !strings.Contains(a.body, "past the last one") ||
		!strings.Contains(a.body, `href="/dashboard/receivables?page=2&amp;status=pending" rel="prev"`) {
		t.Errorf("a page past the last:\n%s", a.body)
	}

	empty := newEnv(t)
	empty.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	if a := empty.signedIn(t, "owner@example.com").open(t, "/dashboard/payables"); !strings.Contains(a.body, "No payables yet") {
		t.Errorf("empty list:\n%s", a.body)
	}
}

func TestReceivableDetailAndCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"fin@example.com", "Fin", "finance"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	seedTransactions(e)
	b := e.signedIn(t, "owner@example.com")
	path := "/dashboard/receivables/" + txID(2)

	a := b.open(t, path)
	for _, want := range []string{"$1.00", ">Created</span>", ">Draft</span>", ">Pending</span>", "20 Nov 2026, 09:31 UTC",
		"Payment link", ">Delivered</span>", `action="` + path + `/cancel"`, `action="` + path + `/resend-notification"`,
		`action="` + path + `/expire"`, `name="_idempotency_key"`, `href="/dashboard/receivables?contact=` + txID(202) + `"`, "Grace Hopper"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	if a := b.open(t, "/dashboard/receivables/"+txID(1)); !strings.Contains(a.body, "No SMS for this receivable") {
		t.Errorf("detail without messages:\n%s", a.body)
	}
	before := e.txns.calls()
	for _, id := range []string{"nope", strings.Repeat("A", 300), "01JTXN%000000000000000000000", txID(1) + "x"} {
		b.wantGet(t, "/dashboard/receivables/"+id, http.StatusNotFound, "malformed id "+id)
	}
	if e.txns.calls() != before {
		t.Error("a malformed id reached transactions-svc")
	}
	b.wantGet(t, "/dashboard/receivables/"+txID(77), http.StatusNotFound, "unknown receivable")
	b.wantGet(t, "/dashboard/payables/"+txID(2), http.StatusNotFound, "a receivable opened as a payable")

	// Cancel: CSRF required, the form's Idempotency-Key passed on.
	token, key := csrf(t, a), idempotencyKey(t, a, "cancel")
	if a := b.do(t, http.MethodPost, path+"/cancel", url.Values{"_idempotency_key": {key}}); a.status != 419 {
		t.Errorf("cancel without csrf = %d, want 419", a.status)
	}
	if e.txns.status(txID(2)) != "pending" {
		t.Fatal("a cancel without csrf went through")
	}
	a = b.do(t, http.MethodPost, path+"/cancel", url.Values{"_csrf": {token}, "_idempotency_key": {key}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != path+"?done=cancel" {
		t.Fatalf("cancel = %d to %q", a.status, a.header.Get("Location"))
	}
	if e.txns.status(txID(2)) != "cancelled" || e.txns.keys[len(e.txns.keys)-1] != key {
		t.Errorf("cancel reached the service as %q with keys %q", e.txns.status(txID(2)), e.txns.keys)
	}
	if a := b.open(t, path+"?done=cancel"); !strings.Contains(a.body, "The receivable is cancelled.") {
		t.Errorf("no notice after cancel:\n%s", a.body)
	}
	// The service's refusal re-renders the page with its status and reason.
	a = b.do(t, http.MethodPost, "/dashboard/receivables/"+txID(1)+"/cancel", url.Values{"_csrf": {token}, "_idempotency_key": {"k2"}})
	if a.status != http.StatusConflict || !strings.Contains(a.body, "A paid receivable cannot be cancelled.") || !strings.Contains(a.body, "INV-1") {
		t.Errorf("cancel of a paid receivable: %d\n%s", a.status, a.body)
	}
	a = b.do(t, http.MethodPost, "/dashboard/receivables/"+txID(3)+"/expire", url.Values{"_csrf": {token}})
	if a.status != http.StatusSeeOther || e.txns.status(txID(3)) != "expired" || e.txns.keys[len(e.txns.keys)-1] == "" {
		t.Errorf("expire without a form key: %d, status %s, key %q", a.status, e.txns.status(txID(3)), e.txns.keys)
	}
	if a := b.do(t, http.MethodPost, "/dashboard/receivables/bad-id/cancel", url.Values{"_csrf": {token}}); a.status != http.StatusNotFound {
		t.Errorf("cancel of a malformed id = %d, want 404", a.status)
	}
	if a := b.do(t, http.MethodPost, "/dashboard/receivables/"+txID(78)+"/resend-notification", url.Values{"_csrf": {token}}); a.status != http.StatusNotFound {
		t.Errorf("resend of an unknown id = %d, want 404", a.status)
	}
	e.txns.wantTokens(t, clienttest.UserTokenOf(tenant, owner.ID))

	// Finance may not cancel (no delete-receivable in the fake role).
	f := e.signedIn(t, "fin@example.com")
	list := f.open(t, "/dashboard/receivables")
	if a := f.do(t, http.MethodPost, "/dashboard/receivables/"+txID(3)+"/cancel", url.Values{"_csrf": {csrf(t, list)}}); a.status != http.StatusForbidden {
		t.Errorf("finance cancel = %d, want 403", a.status)
	}
}

func TestPayableDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	seedTransactions(e)
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/payables")
	if !strings.Contains(a.body, "PAY-9") || !strings.Contains(a.body, "$1,200.00") || strings.Contains(a.body, "INV-1") {
		t.Errorf("payables list:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/payables/"+txID(9))
	if !strings.Contains(a.body, "Payable PAY-9") || !strings.Contains(a.body, "Cancel payable") {
		t.Errorf("payable detail:\n%s", a.body)
	}
	if a := b.get(t, "/dashboard/payables?status=paid"); a.status != http.StatusUnprocessableEntity {
		t.Errorf("a receivable status on payables = %d, want 422", a.status)
	}
}

// idempotencyKey is the Idempotency-Key of the form posting to a path
// ending in action.
func idempotencyKey(t *testing.T, a answer, action string) string {
	t.Helper()
	m := regexp.MustCompile(`/` + action + `">\s*<input type="hidden" name="_csrf" value="[^"]+">\s*<input type="hidden" name="_idempotency_key" value="([^"]+)">`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no %s form with an Idempotency-Key:\n%s", action, a.body)
	}
	return m[1]
}
