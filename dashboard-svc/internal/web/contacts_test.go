package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/identity-svc/client/clienttest"
)

// fakeContacts stands in for contacts-svc's reads: contacts newest first,
// the phone filter exact ("bad" is refused with 422 as the service refuses
// a phone that is not a number), the search by part of the name. Every
// call's token is recorded; deny answers 403 to every call.
type fakeContacts struct {
	mu       sync.Mutex
	contacts []contacts.Contact
	tokens   []string
	lists    []contacts.ListQuery
	shows    []string
	byIDs    [][]string
	estimate int // when set, the list's meta.total, flagged an estimate
	deny     bool
}

func newFakeContacts(e *env) *fakeContacts {
	e.contacts = &fakeContacts{}
	return e.contacts
}

func (f *fakeContacts) add(id, first, last, phone, email string, deleted bool) contacts.Contact {
	f.mu.Lock()
	defer f.mu.Unlock()
	ext := "crm-" + id[len(id)-3:]
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC).Add(time.Duration(len(f.contacts)) * time.Minute)
	c := contacts.Contact{ID: id, ExternalID: &ext, FirstName: &first, LastName: &last, Phone: phone, PhoneID: "P" + id[1:],
		CustomFields: map[string]json.RawMessage{"tier": json.RawMessage(`"gold"`), "visits": json.RawMessage(`3`)},
		CreatedAt:    at, UpdatedAt: at}
	if email != "" {
		c.Email = &email
	}
	if deleted {
		c.DeletedAt = &at
	}
	f.contacts = append([]contacts.Contact{c}, f.contacts...)
	return c
}

func (f *fakeContacts) record(token string) error {
	f.tokens = append(f.tokens, token)
	if f.deny {
		return &contacts.Error{Status: http.StatusForbidden, Code: "forbidden", Message: "This action is unauthorized."}
	}
	return nil
}

func (f *fakeContacts) List(_ context.Context, token string, q contacts.ListQuery) (*contacts.ContactPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, q)
	if err := f.record(token); err != nil {
		return nil, err
	}
	if q.ExternalID == "refused" {
		return nil, &contacts.Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: "The given data was invalid.",
			Details: json.RawMessage(`{"with_trashed":["The with trashed field must be 1 or 0."]}`)}
	}
	if q.Phone == "bad" {
		return nil, &contacts.Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: "The given data was invalid.",
			Details: json.RawMessage(`{"phone":["The phone filter must be a valid phone number."]}`)}
	}
	var match []contacts.Contact
	for _, c := range f.contacts {
		if (c.DeletedAt != nil && !q.WithTrashed) || (q.Phone != "" && c.Phone != q.Phone) ||
			(q.ExternalID != "" && *c.ExternalID != q.ExternalID) {
			continue
		}
		match = append(match, c)
	}
	from, to := min((q.Page-1)*q.PerPage, len(match)), min(q.Page*q.PerPage, len(match))
	meta := contacts.Meta{CurrentPage: q.Page, PerPage: q.PerPage, Total: len(match), LastPage: max(1, (len(match)+q.PerPage-1)/q.PerPage)}
	if f.estimate > 0 {
		meta.Total, meta.TotalIsEstimate, meta.LastPage = f.estimate, true, (f.estimate+q.PerPage-1)/q.PerPage
	}
	return &contacts.ContactPage{Data: match[from:to], Meta: meta}, nil
}

func (f *fakeContacts) Show(_ context.Context, token, id string, withTrashed bool) (*contacts.Contact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shows = append(f.shows, id)
	if err := f.record(token); err != nil {
		return nil, err
	}
	for _, c := range f.contacts {
		if c.ID == id && (withTrashed || c.DeletedAt == nil) {
			c.OptInStatus = "opted_in"
			c.Consents = []contacts.Consent{{ID: "K1", ContactID: id, Status: "confirmed", Channel: "sms", ConsentedAt: &c.CreatedAt}}
			return &c, nil
		}
	}
	return nil, &contacts.Error{Status: http.StatusNotFound, Code: "resource_not_found", Message: "The resource was not found."}
}

func (f *fakeContacts) ByID(_ context.Context, token string, ids []string) ([]contacts.Contact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byIDs = append(f.byIDs, ids)
	if err := f.record(token); err != nil {
		return nil, err
	}
	var found []contacts.Contact
	for _, c := range f.contacts {
		if slices.Contains(ids, c.ID) {
			found = append(found, c)
		}
	}
	return found, nil
}

func (f *fakeContacts) Search(_ context.Context, token string, q contacts.SearchQuery) ([]contacts.Candidate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record(token); err != nil {
		return nil, err
	}
	var out []contacts.Candidate
	for _, c := range f.contacts {
		name := strings.ToLower(*c.FirstName + " " + *c.LastName)
		if c.DeletedAt != nil || (q.Name != "" && !strings.Contains(name, strings.ToLower(q.Name))) ||
			(q.Email != "" && (c.Email == nil || *c.Email != q.Email)) || len(out) == q.Limit {
			continue
		}
		out = append(out, contacts.Candidate{ContactID: c.ID, ExternalID: c.ExternalID, FirstName: c.FirstName, LastName: c.LastName,
			PhoneLast4: c.Phone[len(c.Phone)-4:], Score: 1})
	}
	return out, nil
}

// calls returns how many calls the fake received.
func (f *fakeContacts) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.tokens)
}

func contactID(n int) string { return fmt.Sprintf("01JC0NTACT0000000000000%03d", n) }

func TestContactsList(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"fin@example.com", "Fin", "finance"}, member{"none@example.com", "None", "auditor"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	e.contacts.add(contactID(1), "Ada", "Lovelace", "+14155550100", "ada@example.com", false)
	for i := 2; i <= 30; i++ {
		e.contacts.add(contactID(i), "Person", fmt.Sprint(i), fmt.Sprintf("+1415555%04d", 100+i), "", i == 30)
	}
	b := e.signedIn(t, "owner@example.com")

	a := b.open(t, "/dashboard/contacts")
	for _, want := range []string{`<label for="f-name">Name</label>`, "29 in all", `<a href="/dashboard/contacts/` + contactID(29) + `">Person 29</a>`,
		"Page 1 of 2", `href="/dashboard/contacts?page=2" rel="next"`, `<th scope="col">Phone</th>`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("contacts page lacks %s", want)
		}
	}
	if strings.Contains(a.body, "Person 30") {
		t.Error("a deleted contact is listed without the deleted filter")
	}
	a = b.open(t, "/dashboard/contacts?page=2")
	if !strings.Contains(a.body, "Ada Lovelace") || !strings.Contains(a.body, "1 415-555-0100") || !strings.Contains(a.body, "ada@example.com") ||
		!strings.Contains(a.body, "2 Mar 2026, 09:30 UTC") || !strings.Contains(a.body, `href="/dashboard/contacts" rel="prev"`) {
		t.Errorf("page 2 lacks the first contact's row or the previous link:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/contacts?trashed=1&external_id=crm-030")
	if !strings.Contains(a.body, "Person 30") || !strings.Contains(a.body, `<span class="badge">Deleted</span>`) ||
		!strings.Contains(a.body, `value="crm-030"`) || !strings.Contains(a.body, `name="trashed" value="1" checked`) {
		t.Errorf("filters are not applied or not shown back:\n%s", a.body)
	}
	e.contacts.mu.Lock()
	last := e.contacts.lists[len(e.contacts.lists)-1]
	e.contacts.mu.Unlock()
	if last != (contacts.ListQuery{ExternalID: "crm-030", WithTrashed: true, Page: 1, PerPage: 25}) {
		t.Errorf("list query = %+v", last)
	}
	a = b.open(t, "/dashboard/contacts?trashed=1")
	if !strings.Contains(a.body, `href="/dashboard/contacts?page=2&amp;trashed=1" rel="next"`) {
		t.Errorf("the next link drops the filters:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/contacts?external_id=nobody")
	if !strings.Contains(a.body, "No contact matches this search") {
		t.Errorf("empty result:\n%s", a.body)
	}
	// Above the service's exact count, the total reads as the estimate it is.
	e.contacts.mu.Lock()
	e.contacts.estimate = 1234567
	e.contacts.mu.Unlock()
	if a = b.open(t, "/dashboard/contacts"); !strings.Contains(a.body, "about 1,234,567 in all") {
		t.Errorf("an estimated total is not shown as one:\n%s", a.body)
	}
	e.contacts.mu.Lock()
	e.contacts.estimate = 0
	e.contacts.mu.Unlock()

	// A refused filter re-renders the form with the service's message.
	a = b.get(t, "/dashboard/contacts?phone=bad")
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "The phone filter must be a valid phone number.") ||
		!strings.Contains(a.body, `value="bad"`) || !strings.Contains(a.body, `aria-describedby="f-phone-error"`) {
		t.Errorf("refused phone filter: %d\n%s", a.status, a.body)
	}
	b.wantGet(t, "/dashboard/contacts?page=3", http.StatusNotFound, "a page past the last")
	// A message about a field the form does not show is the form's.
	a = b.get(t, "/dashboard/contacts?external_id=refused")
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, `<p class="error" role="alert">The with trashed field must be 1 or 0.</p>`) {
		t.Errorf("refused query: %d\n%s", a.status, a.body)
	}
	// Malformed query values never reach contacts-svc.
	before := e.contacts.calls()
	if a := b.get(t, "/dashboard/contacts?name=a%00b"); a.status != http.StatusUnprocessableEntity {
		t.Errorf("name holding NUL = %d, want 422", a.status)
	}
	if a := b.get(t, "/dashboard/contacts?email="+strings.Repeat("x", 201)); a.status != http.StatusUnprocessableEntity {
		t.Errorf("email of 201 characters = %d, want 422", a.status)
	}
	for _, q := range []string{"page=0", "page=abc", "page=99999999999999999999", "page=-1"} {
		b.wantGet(t, "/dashboard/contacts?"+q, http.StatusNotFound, "malformed "+q)
	}
	if n := e.contacts.calls(); n != before {
		t.Errorf("malformed queries made %d calls to contacts-svc", n-before)
	}

	e.contacts.mu.Lock()
	for _, tok := range e.contacts.tokens {
		if tok != clienttest.UserTokenOf(tenant, owner.ID) {
			t.Errorf("contacts-svc called with %q, want the user's internal token", tok)
		}
	}
	e.contacts.mu.Unlock()

	e.signedIn(t, "none@example.com").wantGet(t, "/dashboard/contacts", http.StatusForbidden, "a role without api:view-any-contact")
	e.contacts.deny = true
	b.wantGet(t, "/dashboard/contacts", http.StatusForbidden, "contacts-svc refusing the token")
}

func TestContactsSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"fin@example.com", "Fin", "finance"})
	e.contacts.add(contactID(1), "Ada", "Lovelace", "+14155550100", "ada@example.com", false)
	e.contacts.add(contactID(2), "Grace", "Hopper", "+14155550101", "grace@example.com", false)
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/contacts?name=lovel")
	if !strings.Contains(a.body, "Closest matches") || !strings.Contains(a.body, "Ada Lovelace") || strings.Contains(a.body, "Grace") ||
		!strings.Contains(a.body, "Opted in") || !strings.Contains(a.body, "1 415-555-0100") || !strings.Contains(a.body, `value="lovel"`) {
		t.Errorf("name search:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/contacts?email=grace@example.com")
	if !strings.Contains(a.body, "Grace Hopper") || strings.Contains(a.body, "Ada") {
		t.Errorf("email search:\n%s", a.body)
	}
	a = b.open(t, "/dashboard/contacts?name=nobody")
	if !strings.Contains(a.body, "No contact matches this search") {
		t.Errorf("empty search:\n%s", a.body)
	}
	// Finance lists contacts but may not open one: the search shows the
	// phone's last digits and no link, and the detail page is refused.
	f := e.signedIn(t, "fin@example.com")
	shows := len(e.contacts.shows)
	a = f.open(t, "/dashboard/contacts?name=ada")
	if !strings.Contains(a.body, "Ada Lovelace") || !strings.Contains(a.body, "ending 0100") || strings.Contains(a.body, `href="/dashboard/contacts/`) {
		t.Errorf("finance search:\n%s", a.body)
	}
	if len(e.contacts.shows) != shows {
		t.Error("the search read contacts for a role without api:view-contact")
	}
	f.wantGet(t, "/dashboard/contacts/"+contactID(1), http.StatusForbidden, "finance opens a contact")
}

func TestContactDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"sup@example.com", "Sup", "support"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	e.contacts.add(contactID(1), "Ada", "Lovelace", "+442079460958", "ada@example.com", false)
	e.contacts.add(contactID(2), "Gone", "Away", "+14155550101", "", true)
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/contacts/"+contactID(1))
	for _, want := range []string{"<h1>Ada Lovelace", "44 20 7946 0958", "ada@example.com", "crm-001", "442079460958",
		`<dt class="mono">tier</dt><dd>gold</dd>`, `<dt class="mono">visits</dt><dd>3</dd>`, "Opted in", "<td data-label=\"Channel\">SMS</td>",
		`href="/dashboard/receivables?contact_id=` + contactID(1) + `"`, `href="/dashboard/payables?contact_id=` + contactID(1) + `"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("contact page lacks %s", want)
		}
	}
	a = b.open(t, "/dashboard/contacts/"+contactID(2))
	if !strings.Contains(a.body, `<span class="badge">Deleted</span>`) {
		t.Errorf("a deleted contact does not say so:\n%s", a.body)
	}
	e.contacts.mu.Lock()
	for _, tok := range e.contacts.tokens {
		if tok != clienttest.UserTokenOf(tenant, owner.ID) {
			t.Errorf("contacts-svc called with %q, want the user's internal token", tok)
		}
	}
	calls := len(e.contacts.tokens)
	e.contacts.mu.Unlock()
	for _, id := range []string{"not-a-ulid", "%00", strings.Repeat("0", 300), "01JC0NTACT0000000000000001%00"} {
		b.wantGet(t, "/dashboard/contacts/"+id, http.StatusNotFound, "malformed id "+id)
	}
	if n := e.contacts.calls(); n != calls {
		t.Errorf("malformed ids made %d calls to contacts-svc", n-calls)
	}
	b.wantGet(t, "/dashboard/contacts/01JC0NTACT0000000000000999", http.StatusNotFound, "unknown contact")

	// Support has no receivables or payables: no links to them.
	a = e.signedIn(t, "sup@example.com").open(t, "/dashboard/contacts/"+contactID(1))
	if strings.Contains(a.body, "/dashboard/receivables?") {
		t.Error("support sees a link to receivables it cannot read")
	}
}
