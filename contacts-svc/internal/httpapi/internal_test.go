package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/libs/apierr"
)

// internalToken is the token a service forwards: the tenant's, with no
// contact abilities (a receivable create holds api:create-receivable only).
func (e *env) internalToken(t *testing.T, tenant string) string {
	return e.token(t, tenant, "api:create-receivable")
}

func TestLookupFindsTrashedContacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.newContact(t)
	e.trash(t, c.ID)
	r := e.do(t, request{method: "GET", path: "/internal/v1/contacts/" + c.ID, token: e.internalToken(t, tenantA)})
	var got contactJSON
	r.data(t, &got)
	if r.status != 200 || got.ID != c.ID || got.DeletedAt == nil {
		t.Errorf("lookup = %d %s", r.status, r.body)
	}
	for _, tt := range []struct{ path, token string }{
		{"/internal/v1/contacts/nope", e.internalToken(t, tenantA)},
		{"/internal/v1/contacts/" + c.ID, e.internalToken(t, tenantB)},
	} {
		checkResult(t, e.do(t, request{method: "GET", path: tt.path, token: tt.token}), 404, apierr.CodeResourceNotFound, "")
	}
	checkResult(t, e.do(t, request{method: "GET", path: "/internal/v1/contacts/" + c.ID}), 401, apierr.CodeUnauthenticated, "")
}

func TestFindOrCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.internalToken(t, tenantA)
	phone := e.phone()
	type answer struct {
		Contact contactJSON `json:"contact"`
		Created bool        `json:"created"`
	}
	call := func(body string) (result, answer) {
		r := e.do(t, request{method: "POST", path: "/internal/v1/contacts/find-or-create", token: tok, body: body})
		var a answer
		if r.status < 300 {
			r.data(t, &a)
		}
		return r, a
	}
	r, first := call(`{"external_id":"crm-7","first_name":"Ada","phone":"` + phone + `"}`)
	if r.status != 201 || !first.Created || first.Contact.Phone != phone {
		t.Fatalf("first = %d %s", r.status, r.body)
	}
	r, again := call(`{"external_id":"crm-7","first_name":"Someone else","phone":"` + e.phone() + `"}`)
	if r.status != 200 || again.Created || again.Contact.ID != first.Contact.ID || *again.Contact.FirstName != "Ada" {
		t.Errorf("second = %d %s, want the first contact unchanged", r.status, r.body)
	}
	r, _ = call(`{"first_name":"No external id","phone":"` + phone + `"}`)
	checkResult(t, r, 422, apierr.CodeValidationFailed, "phone")
	r, _ = call(`{"external_id":"crm-8"}`)
	checkResult(t, r, 422, apierr.CodeValidationFailed, "phone")
}

func TestSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ada := e.create(t, tenantA, `{"first_name":"Ada","last_name":"Lovelace","phone":"`+e.phone()+`"}`)
	e.create(t, tenantA, `{"first_name":"Grace","last_name":"Hopper","phone":"`+e.phone()+`"}`)
	tok := e.internalToken(t, tenantA)
	r := e.do(t, request{method: "GET", path: "/internal/v1/contacts/search?name=ada%20lovlace", token: tok})
	var got []struct {
		ContactID  string  `json:"contact_id"`
		PhoneLast4 string  `json:"phone_last4"`
		Score      float64 `json:"score"`
	}
	r.data(t, &got)
	if len(got) != 1 || got[0].ContactID != ada.ID || got[0].PhoneLast4 != ada.Phone[len(ada.Phone)-4:] || got[0].Score <= 0 {
		t.Errorf("search = %s", r.body)
	}
	if strings.Contains(string(r.body), ada.Phone) {
		t.Errorf("search leaks the full phone number: %s", r.body)
	}
	for _, tt := range []struct{ query, detail string }{
		{"", "name"},
		{"?name=ada&limit=0", "limit"},
		{"?name=ada&limit=51", "limit"},
		{"?phone=abc", "phone"},
	} {
		r := e.do(t, request{method: "GET", path: "/internal/v1/contacts/search" + tt.query, token: tok})
		checkResult(t, r, 422, apierr.CodeValidationFailed, tt.detail)
	}
}

// rowResult is one bulk-upsert outcome.
type rowResult struct {
	RowIndex  int                 `json:"row_index"`
	ContactID string              `json:"contact_id"`
	Action    string              `json:"action"`
	Errors    map[string][]string `json:"errors"`
}

func (e *env) bulk(t *testing.T, body string) []rowResult {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/internal/v1/contacts/bulk-upsert", token: e.internalToken(t, tenantA), body: body})
	if r.status != http.StatusOK {
		t.Fatalf("bulk-upsert = %d %s", r.status, r.body)
	}
	var out []rowResult
	r.data(t, &out)
	return out
}

func TestBulkUpsert(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	existing := e.create(t, tenantA, `{"external_id":"crm-1","first_name":"Old","phone":"`+e.phone()+`"}`)
	taken := e.newContact(t)
	p1, p2, p3 := e.phone(), e.phone(), e.phone()
	items := []string{
		`{"external_id":"crm-1","first_name":"Updated","phone":"` + existing.Phone + `"}`, // 0 updates existing
		`{"external_id":"crm-2","first_name":"New","phone":"` + p1 + `"}`,                 // 1 created
		`{"external_id":"crm-2","first_name":"Newer","phone":"` + p1 + `"}`,               // 2 updates row 1
		`{"first_name":"No id","phone":"` + p2 + `"}`,                                     // 3 created
		`{"first_name":"Taken","phone":"` + taken.Phone + `"}`,                            // 4 phone of a live contact
		`{"first_name":"Bad","phone":"nope","email":"x"}`,                                 // 5 invalid
		`{"phone":"` + p3 + `","nickname":"x"}`,                                           // 6 unknown field
		`["not","an","object"]`,                                                           // 7 not an object
	}
	body := `{"batch_id":"B1","first_row_index":100,"items":[` + strings.Join(items, ",") + `]}`
	got := e.bulk(t, body)
	want := []rowResult{
		{RowIndex: 100, ContactID: existing.ID, Action: "updated"},
		{RowIndex: 101, Action: "created"},
		{RowIndex: 102, Action: "updated"},
		{RowIndex: 103, Action: "created"},
		{RowIndex: 104, Action: "failed", Errors: map[string][]string{"phone": {"The phone has already been taken."}}},
		{RowIndex: 105, Action: "failed", Errors: map[string][]string{
			"phone": {"The phone field must be a valid phone number."}, "email": {"The email field must be a valid email address."}}},
		{RowIndex: 106, Action: "failed", Errors: map[string][]string{"nickname": {"The nickname field is not allowed."}}},
		{RowIndex: 107, Action: "failed", Errors: map[string][]string{"item": {"The item must be a JSON object."}}},
	}
	if len(got) == len(want) {
		want[1].ContactID, want[2].ContactID, want[3].ContactID = got[1].ContactID, got[1].ContactID, got[3].ContactID
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	if n := e.total(t); n != 4 { // existing, taken, crm-2, no id
		t.Errorf("contacts = %d, want 4", n)
	}
	r := e.do(t, request{method: "GET", path: "/api/v1/contacts/" + got[2].ContactID, token: e.token(t, tenantA, all()...)})
	if !strings.Contains(string(r.body), `"first_name":"Newer"`) {
		t.Errorf("the later duplicate row did not win: %s", r.body)
	}
	// Resuming the batch answers from the record and writes nothing twice.
	if diff := cmp.Diff(got, e.bulk(t, body)); diff != "" {
		t.Errorf("resumed results (-first +resumed):\n%s", diff)
	}
	if n := e.total(t); n != 4 {
		t.Errorf("contacts after resume = %d, want 4", n)
	}
}

func TestBulkUpsertDuplicatePolicies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	existing := e.create(t, tenantA, `{"external_id":"crm-1","first_name":"Old","phone":"`+e.phone()+`"}`)
	for i, tt := range []struct {
		policy string
		want   rowResult
	}{
		{"skip", rowResult{RowIndex: 0, ContactID: existing.ID, Action: "skipped"}},
		{"fail", rowResult{RowIndex: 0, Action: "failed", Errors: map[string][]string{"external_id": {"The external id has already been taken."}}}},
		{"update", rowResult{RowIndex: 0, ContactID: existing.ID, Action: "updated"}},
	} {
		body := fmt.Sprintf(`{"batch_id":"B%d","on_duplicate":%q,"items":[{"external_id":"crm-1","phone":"%s"}]}`, i, tt.policy, e.phone())
		if diff := cmp.Diff([]rowResult{tt.want}, e.bulk(t, body)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.policy, diff)
		}
	}
	for _, tt := range []struct{ body, detail string }{
		{`{"batch_id":"B9","on_duplicate":"merge","items":[{"phone":"+14155550100"}]}`, "on_duplicate"},
		{`{"items":[{"phone":"+14155550100"}]}`, "batch_id"},
		{`{"batch_id":"B9","items":[]}`, "items"},
	} {
		r := e.do(t, request{method: "POST", path: "/internal/v1/contacts/bulk-upsert", token: e.internalToken(t, tenantA), body: tt.body})
		checkResult(t, r, 422, apierr.CodeValidationFailed, tt.detail)
	}
}

func TestLookupPhone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.newContact(t)
	e.trash(t, c.ID) // the record outlives its contacts
	r := e.do(t, request{method: "GET", path: "/internal/v1/phones/" + c.PhoneID, token: e.internalToken(t, tenantA)})
	var got struct {
		ID, Phone, CreatedAt string
	}
	r.data(t, &got)
	if r.status != 200 || got.ID != c.PhoneID || got.Phone != c.Phone {
		t.Errorf("phone = %d %s", r.status, r.body)
	}
	for _, tt := range []struct{ path, token string }{
		{"/internal/v1/phones/" + c.PhoneID, e.internalToken(t, tenantB)},
		{"/internal/v1/phones/" + c.ID, e.internalToken(t, tenantA)},
		{"/internal/v1/phones/+14155550100", e.internalToken(t, tenantA)},
	} {
		checkResult(t, e.do(t, request{method: "GET", path: tt.path, token: tt.token}), 404, apierr.CodeResourceNotFound, "")
	}
}

// TestBulkUpsertTimedOutIsRetryable: a chunk whose statement runs past the
// bound (here: its wait for the batch's lock, held by an earlier attempt
// still running) answers 503 service_unavailable with Retry-After and
// writes nothing, so batch-svc retries the chunk instead of failing its
// rows; the retry, once the lock is free, writes the row.
func TestBulkUpsertTimedOutIsRetryable(t *testing.T) {
	t.Parallel()
	var bounded *app.App
	e := newEnvWith(t, func(a *app.App) *app.App {
		bounded = a
		return a.WithBulkStatementTimeout(200 * time.Millisecond)
	})
	ctx := context.Background()
	holder, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT set_config('app.tenant_id', $1, true),
		pg_advisory_xact_lock(hashtextextended($1 || '/contact-batch/' || 'B1', 0))`, tenantA); err != nil {
		t.Fatal(err)
	}
	body := `{"batch_id":"B1","first_row_index":0,"items":[{"external_id":"crm-1","first_name":"Ada","phone":"` + e.phone() + `"}]}`
	r := e.do(t, request{method: "POST", path: "/internal/v1/contacts/bulk-upsert", token: e.internalToken(t, tenantA), body: body})
	checkResult(t, r, http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, "")
	if r.header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	if n := e.total(t); n != 0 {
		t.Errorf("contacts after the timed-out chunk = %d, want 0", n)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// The retry under the default bound (200 ms could cut a statement of a
	// loaded machine short).
	bounded.WithBulkStatementTimeout(app.BulkStatementTimeout)
	if got := e.bulk(t, body); len(got) != 1 || got[0].Action != "created" {
		t.Errorf("the retry = %+v, want row 0 created", got)
	}
}
