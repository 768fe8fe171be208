package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/dashboard-svc/internal/web"
	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/client/clienttest"
	optin "github.com/paylane/paylane/optin-svc/client"
)

// Ids the fakes know.
const (
	codeA    = "01JC0DE000000000000000000A"
	codeB    = "01JC0DE000000000000000000B"
	contactX = "01JC0NTACT0000000000000000"
	entryS   = "01JS0PPRESS000000000000000"
	entryT   = "01JS0PPRESSST0P00000000000"
)

// fakeOptIn stands in for optin-svc: codes, consents and a suppression
// list, the calls' tokens and Idempotency-Keys recorded; a write with a
// key it saw answers as the first did, as the service does.
type fakeOptIn struct {
	mu      sync.Mutex
	codes   []optin.Code
	counts  map[string]optin.ConsentCounts
	consent []optin.Consent
	entries []optin.Suppression
	tokens  []string
	keys    []string
	byKey   map[string]string
	queries []optin.ConsentQuery
	// off answers the code and consent calls as optin-svc does for a
	// tenant whose opt-in is switched off.
	off bool
}

var errRouteNotFound = &optin.Error{Status: 404, Code: "route_not_found", Message: "No such route."}

func newFakeOptIn() *fakeOptIn {
	at := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	last4 := "0123"
	return &fakeOptIn{
		codes: []optin.Code{
			{ID: codeA, Name: "Shop counter", URL: "https://pay.example.com/l/o/abc123", IsLive: true, IsDefault: true, ScanCount: 9, CreatedAt: at},
			{ID: codeB, Name: "Old poster", URL: "https://pay.example.com/l/o/old999", IsLive: false, CreatedAt: at},
		},
		counts: map[string]optin.ConsentCounts{codeA: {Confirmed: 4, Pending: 2, Revoked: 1}},
		consent: []optin.Consent{
			{ID: "K1", ContactID: contactX, OptInCodeID: codeA, Status: "confirmed", ConsentedAt: &at},
			{ID: "K2", ContactID: "01JC0NTACT0000000000000001", Status: "pending", ConsentedAt: &at},
		},
		entries: []optin.Suppression{
			{ID: entryS, PhoneLast4: last4, Reason: "complaint", Channel: "sms", Source: "api", CreatedAt: at},
			{ID: entryT, PhoneLast4: "0999", Reason: "manual", Channel: "sms", Source: "stop", CreatedAt: at},
		},
		byKey: map[string]string{},
	}
}

func (f *fakeOptIn) saw(token, key string) {
	f.tokens = append(f.tokens, token)
	if key != "" {
		f.keys = append(f.keys, key)
	}
}

func (f *fakeOptIn) Codes(_ context.Context, token string, q optin.CodeQuery) (*optin.CodePage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off {
		return nil, errRouteNotFound
	}
	f.saw(token, "")
	out := &optin.CodePage{Data: []optin.Code{}}
	for _, c := range f.codes {
		if q.Active == "" || (q.Active == "true") == c.IsLive {
			out.Data = append(out.Data, c)
		}
	}
	out.Meta = optin.Meta{CurrentPage: max(q.Page, 1), PerPage: 15, Total: len(out.Data), LastPage: 3}
	return out, nil
}

func (f *fakeOptIn) Code(_ context.Context, token, id string) (*optin.Code, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off {
		return nil, errRouteNotFound
	}
	f.saw(token, "")
	for _, c := range f.codes {
		if c.ID == id {
			return &c, nil
		}
	}
	return nil, &optin.Error{Status: 404, Code: "resource_not_found"}
}

func (f *fakeOptIn) CreateCode(_ context.Context, token, key string, in optin.CodeInput) (*optin.Code, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off {
		return nil, errRouteNotFound
	}
	f.saw(token, key)
	if in.Name == "" {
		return nil, &optin.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"name":["The name field is required."]}`)}
	}
	if utf8.RuneCountInString(in.Name) > 191 {
		return nil, &optin.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"name":["The name may not be greater than 191 characters."]}`)}
	}
	if id, ok := f.byKey[key]; ok {
		for _, c := range f.codes {
			if c.ID == id {
				return &c, nil
			}
		}
	}
	c := optin.Code{ID: fmt.Sprintf("01JC0DE00000000000000000%02d", len(f.codes)), Name: in.Name,
		URL: "https://pay.example.com/l/o/new" + fmt.Sprint(len(f.codes)), IsLive: true, DoubleOptIn: in.DoubleOptIn != nil && *in.DoubleOptIn}
	f.codes = append(f.codes, c)
	f.byKey[key] = c.ID
	return &c, nil
}

func (f *fakeOptIn) ConsentCounts(_ context.Context, token string) (map[string]optin.ConsentCounts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off {
		return nil, errRouteNotFound
	}
	f.saw(token, "")
	return f.counts, nil
}

func (f *fakeOptIn) Consents(_ context.Context, token string, q optin.ConsentQuery) (*optin.ConsentPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off {
		return nil, errRouteNotFound
	}
	f.saw(token, "")
	f.queries = append(f.queries, q)
	out := &optin.ConsentPage{Data: []optin.Consent{}}
	for _, k := range f.consent {
		if (q.Status == "" || q.Status == k.Status) && (q.OptInCodeID == "" || q.OptInCodeID == k.OptInCodeID) {
			out.Data = append(out.Data, k)
		}
	}
	out.Meta = optin.Meta{CurrentPage: max(q.Page, 1), PerPage: 25, Total: len(out.Data), LastPage: 2}
	return out, nil
}

func (f *fakeOptIn) Suppressions(_ context.Context, token string, o optin.ListOptions) (*optin.SuppressionPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saw(token, "")
	return &optin.SuppressionPage{Data: append([]optin.Suppression{}, f.entries...),
		Meta: optin.Meta{CurrentPage: max(o.Page, 1), PerPage: 25, Total: len(f.entries), LastPage: 1}}, nil
}

func (f *fakeOptIn) AddSuppression(_ context.Context, token, key string, in optin.SuppressionInput) (*optin.Suppression, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saw(token, key)
	if in.Reason != "manual" && in.Reason != "bounce" && in.Reason != "complaint" {
		return nil, &optin.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"reason":["The selected reason is invalid (manual, bounce, complaint)."]}`)}
	}
	id := in.ContactPhoneID
	s := optin.Suppression{ID: "01JS0PPRESSNEW000000000000", PhoneLast4: "0555", ContactPhoneID: &id, Reason: in.Reason, Channel: "sms", Source: "api"}
	f.entries = append([]optin.Suppression{s}, f.entries...)
	return &s, nil
}

func (f *fakeOptIn) RemoveSuppression(_ context.Context, token, key, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saw(token, key)
	for i, s := range f.entries {
		if s.ID != id {
			continue
		}
		if s.Source == "stop" {
			return &optin.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"contact_phone":["The number was suppressed by the recipient's STOP reply; only their START reply lifts it."]}`)}
		}
		f.entries = append(f.entries[:i], f.entries[i+1:]...)
		return nil
	}
	return &optin.Error{Status: 404, Code: "resource_not_found"}
}

// fakePhones stands in for contacts-svc's contact search and read: one
// contact with the number +14155550555. It embeds web.Contacts so that it
// is one whatever else the contacts pages ask of contacts-svc.
type fakePhones struct {
	web.Contacts
	mu     sync.Mutex
	tokens []string
}

func (f *fakePhones) Search(_ context.Context, token string, q contacts.SearchQuery) ([]contacts.Candidate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, token)
	switch strings.NewReplacer(" ", "", "(", "", ")", "", "-", "").Replace(q.Phone) {
	case "+14155550555", "4155550555":
		return []contacts.Candidate{{ContactID: contactX, PhoneLast4: "0555", Score: 1}}, nil
	case "+14155550000":
		return []contacts.Candidate{}, nil
	}
	return nil, &contacts.Error{Status: 422, Code: "validation_failed", Details: []byte(`{"phone":["The phone format is invalid."]}`)}
}

func (f *fakePhones) Contact(_ context.Context, token, id string) (*contacts.Contact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, token)
	if id != contactX {
		return nil, &contacts.Error{Status: 404, Code: "resource_not_found"}
	}
	return &contacts.Contact{ID: contactX, Phone: "+14155550555", PhoneID: "01JPH0NE000000000000000555"}, nil
}

// optinEnv is the dashboard with fakes of optin-svc and of contacts-svc's
// phone lookup.
type optinEnv struct {
	*env
	optin  *fakeOptIn
	phones *fakePhones
	ids    map[string]string // email → user id
}

func newOptInEnv(t *testing.T, members ...member) *optinEnv {
	t.Helper()
	e := newEnv(t)
	o := &optinEnv{env: e, optin: newFakeOptIn(), phones: &fakePhones{}, ids: map[string]string{}}
	for _, m := range members {
		u, _ := e.identity.AddUser(tenant, m.email, m.name, m.role, password)
		o.ids[m.email] = u.ID
	}
	app, err := web.New(web.Options{
		Identity: identity.NewWithSecret(e.identity.URL, clienttest.UsersSecret, nil),
		OptIn:    o.optin,
		Contacts: o.phones,
		Sessions: e.store,
		Now:      func() time.Time { return *e.clock },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.app = app
	return o
}

// userToken is the internal token the fake identity issues for email's user.
func (o *optinEnv) userToken(t *testing.T, email string) string {
	t.Helper()
	id, ok := o.ids[email]
	if !ok {
		t.Fatalf("no user %s", email)
	}
	return clienttest.UserTokenOf(tenant, id)
}

func (o *optinEnv) checkTokens(t *testing.T, want string) {
	t.Helper()
	o.optin.mu.Lock()
	defer o.optin.mu.Unlock()
	if len(o.optin.tokens) == 0 {
		t.Fatal("optin-svc was not called")
	}
	for _, tok := range o.optin.tokens {
		if tok != want {
			t.Fatalf("optin-svc called with token %q, want the user's internal token %q", tok, want)
		}
	}
}

var optinIdemPattern = regexp.MustCompile(`name="_idempotency_key" value="([^"]+)"`)

func optinIdemKey(t *testing.T, a answer) string {
	t.Helper()
	m := optinIdemPattern.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no _idempotency_key field in the page:\n%s", a.body)
	}
	return m[1]
}

func optinWant(t *testing.T, a answer, what string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(a.body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, a.body)
		}
	}
}

func TestOptInCodes(t *testing.T) {
	t.Parallel()
	o := newOptInEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"sup@example.com", "Sup", "support"})
	b := o.signedIn(t, "owner@example.com")
	list := b.open(t, "/dashboard/opt-in-codes")
	optinWant(t, list, "codes page", "Shop counter", "https://pay.example.com/l/o/abc123", "Default",
		`<td data-label="Confirmed" class="num">4</td>`, `<td data-label="Pending" class="num">2</td>`, `<td data-label="Revoked" class="num">1</td>`,
		`href="/dashboard/opt-ins"`, `<label for="code-name">Name</label>`, `href="/dashboard/opt-in-codes?page=2" rel="next"`)
	inactive := b.open(t, "/dashboard/opt-in-codes?active=false&page=2")
	optinWant(t, inactive, "inactive codes", "Old poster", `<option value="false" selected>`,
		`href="/dashboard/opt-in-codes?active=false" rel="prev"`, `href="/dashboard/opt-in-codes?active=false&amp;page=3" rel="next"`)
	if strings.Contains(inactive.body, "Shop counter") {
		t.Error("the inactive filter shows an active code")
	}
	for _, bad := range []string{"?active=maybe", "?page=0", "?page=x", "?page=99999999999999999999"} {
		b.wantGet(t, "/dashboard/opt-in-codes"+bad, http.StatusUnprocessableEntity, "codes"+bad)
	}

	// Create: CSRF, then a 422 re-render, then a code with the form's key.
	token, key := csrf(t, list), optinIdemKey(t, list)
	if a := b.do(t, http.MethodPost, "/dashboard/opt-in-codes", url.Values{"name": {"Window"}}); a.status != 419 {
		t.Errorf("create without csrf = %d, want 419", a.status)
	}
	a := b.do(t, http.MethodPost, "/dashboard/opt-in-codes", url.Values{"_csrf": {token}, "_idempotency_key": {key}, "name": {"  "}, "double_opt_in": {"yes"}})
	expectStatus(t, a, http.StatusUnprocessableEntity)
	optinWant(t, a, "refused code", "The name field is required.", `aria-invalid="true"`, `name="double_opt_in" value="yes" checked`)
	if a := b.do(t, http.MethodPost, "/dashboard/opt-in-codes", url.Values{"_csrf": {token}, "name": {strings.Repeat("n", 192)}}); a.status != 422 {
		t.Errorf("a 192-character name = %d, want 422", a.status)
	}
	form := url.Values{"_csrf": {token}, "_idempotency_key": {key}, "name": {"Window"}, "double_opt_in": {"yes"}}
	a = b.do(t, http.MethodPost, "/dashboard/opt-in-codes", form)
	expectStatus(t, a, http.StatusSeeOther)
	loc := a.header.Get("Location")
	if !strings.HasPrefix(loc, "/dashboard/opt-in-codes/01JC0DE") || !strings.HasSuffix(loc, "?notice=code-created") {
		t.Fatalf("created code goes to %q", loc)
	}
	if again := b.do(t, http.MethodPost, "/dashboard/opt-in-codes", form); again.header.Get("Location") != loc {
		t.Errorf("the form sent twice goes to %q, want %q", again.header.Get("Location"), loc)
	}
	o.optin.mu.Lock()
	if len(o.optin.codes) != 3 || !o.optin.codes[2].DoubleOptIn || o.optin.keys[len(o.optin.keys)-1] != key {
		t.Errorf("codes %+v, keys %v; want one new double opt-in code created with the form's key %s", o.optin.codes, o.optin.keys, key)
	}
	o.optin.mu.Unlock()
	created := b.open(t, loc)
	optinWant(t, created, "new code page", "The opt-in code is created", "Window", "Yes: consents wait for a YES reply")
	o.checkTokens(t, o.userToken(t, "owner@example.com"))

	// Support holds no opt-in ability.
	s := o.signedIn(t, "sup@example.com")
	s.wantGet(t, "/dashboard/opt-in-codes", http.StatusForbidden, "support GET codes")
	s.wantGet(t, "/dashboard/opt-in-codes/"+codeA, http.StatusForbidden, "support GET a code")
	s.wantGet(t, "/dashboard/opt-ins", http.StatusForbidden, "support GET consents")
	acct := s.open(t, "/dashboard/account")
	if a := s.do(t, http.MethodPost, "/dashboard/opt-in-codes", url.Values{"_csrf": {csrf(t, acct)}, "name": {"X"}}); a.status != http.StatusForbidden {
		t.Errorf("support create = %d, want 403", a.status)
	}
	if strings.Contains(acct.body, "/dashboard/opt-in-codes") || strings.Contains(acct.body, "/dashboard/suppression") {
		t.Error("support's navigation links to opt-in pages")
	}
}

func TestOptInCodePage(t *testing.T) {
	t.Parallel()
	o := newOptInEnv(t, member{"owner@example.com", "Owner", "owner"})
	b := o.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/opt-in-codes/"+codeA)
	optinWant(t, a, "code page", "<h1>Shop counter</h1>", "https://pay.example.com/l/o/abc123",
		`<td class="num" id="count-confirmed">4</td>`, `<td class="num">9</td>`, `href="/dashboard/opt-ins?code=`+codeA+`"`,
		`href="/dashboard/opt-in-codes/`+codeA+`/qr.png" download`, `alt="QR code of the landing page https://pay.example.com/l/o/abc123"`)
	m := regexp.MustCompile(`src="data:image/png;base64,([^"]+)"`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no inline QR image:\n%s", a.body)
	}
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() != 320 {
		t.Fatalf("inline QR: %v", err)
	}
	dl := b.open(t, "/dashboard/opt-in-codes/"+codeA+"/qr.png")
	if dl.header.Get("Content-Type") != "image/png" || dl.header.Get("Cache-Control") != "private, max-age=300" ||
		!strings.Contains(dl.header.Get("Content-Disposition"), "attachment") || !bytes.Equal([]byte(dl.body), raw) {
		t.Errorf("download: %v, %d bytes", dl.header, len(dl.body))
	}
	before := len(o.optin.tokens)
	for _, bad := range []string{"nope", strings.Repeat("A", 300), "01JC0DE000000000000000000A%00", "01JC0DE00000000000000000ZZ"} {
		b.wantGet(t, "/dashboard/opt-in-codes/"+bad, http.StatusNotFound, "code "+bad)
		b.wantGet(t, "/dashboard/opt-in-codes/"+bad+"/qr.png", http.StatusNotFound, "qr of "+bad)
	}
	if len(o.optin.tokens) != before+2 { // only the well-formed unknown id reaches optin-svc, twice
		t.Errorf("malformed ids reached optin-svc: %d calls", len(o.optin.tokens)-before)
	}
}

func TestConsents(t *testing.T) {
	t.Parallel()
	o := newOptInEnv(t, member{"owner@example.com", "Owner", "owner"})
	b := o.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/opt-ins")
	optinWant(t, a, "consents", "Confirmed", "Pending", "YES reply", contactX, `>Shop counter</a>`, "4 Mar 2026, 05:06 UTC",
		`<label for="f-status">Status</label>`)
	a = b.open(t, "/dashboard/opt-ins?status=confirmed&code="+codeA)
	optinWant(t, a, "filtered consents", `<option value="confirmed" selected>`, `<option value="`+codeA+`" selected>`,
		`href="/dashboard/opt-ins?code=`+codeA+`&amp;page=2&amp;status=confirmed" rel="next"`)
	if strings.Contains(a.body, "YES reply") {
		t.Error("the filter shows a pending consent")
	}
	last := o.optin.queries[len(o.optin.queries)-1]
	if last.Status != "confirmed" || last.OptInCodeID != codeA {
		t.Errorf("optin-svc asked %+v", last)
	}
	a = b.open(t, "/dashboard/opt-ins?status=revoked")
	optinWant(t, a, "no match", "No consents match these filters")
	for _, bad := range []string{"?status=gone", "?code=x", "?contact=" + strings.Repeat("9", 40), "?page=-1"} {
		b.wantGet(t, "/dashboard/opt-ins"+bad, http.StatusUnprocessableEntity, "consents"+bad)
	}
	o.checkTokens(t, o.userToken(t, "owner@example.com"))
}

func TestSuppression(t *testing.T) {
	t.Parallel()
	o := newOptInEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"dev@example.com", "Dev", "developer"})
	b := o.signedIn(t, "owner@example.com")
	list := b.open(t, "/dashboard/suppression")
	optinWant(t, list, "suppression page", "•••• 0123", "Complaint", "API or dashboard", "Stop",
		`action="/dashboard/suppression/`+entryS+`/remove"`, `<label for="sup-phone">`, `<option value="bounce">Bounce</option>`)
	token, key := csrf(t, list), optinIdemKey(t, list)

	tests := []struct {
		name   string
		form   url.Values
		status int
		text   string
	}{
		{"no csrf", url.Values{"phone": {"+14155550555"}, "reason": {"manual"}}, 419, "Page expired"},
		{"no phone", url.Values{"_csrf": {token}, "reason": {"manual"}}, 422, "Enter the phone number"},
		{"not a phone", url.Values{"_csrf": {token}, "phone": {"call me"}, "reason": {"manual"}}, 422, "Enter a phone number such as"},
		{"too long", url.Values{"_csrf": {token}, "phone": {strings.Repeat("1", 40)}, "reason": {"manual"}}, 422, "Enter a phone number such as"},
		{"NUL", url.Values{"_csrf": {token}, "phone": {"+1415\x00"}, "reason": {"manual"}}, 422, "Enter a phone number such as"},
		{"no contact", url.Values{"_csrf": {token}, "phone": {"+14155550000"}, "reason": {"manual"}}, 422, "No contact has this number"},
		{"bad reason", url.Values{"_csrf": {token}, "phone": {"+14155550555"}, "reason": {"spite"}}, 422, "The selected reason is invalid"},
	}
	for _, tc := range tests {
		a := b.do(t, http.MethodPost, "/dashboard/suppression", tc.form)
		if a.status != tc.status || !strings.Contains(a.body, tc.text) {
			t.Errorf("%s: %d, want %d with %q\n%s", tc.name, a.status, tc.status, tc.text, a.body)
		}
	}
	if len(o.optin.entries) != 2 {
		t.Fatalf("refused forms changed the list: %+v", o.optin.entries)
	}
	a := b.do(t, http.MethodPost, "/dashboard/suppression", url.Values{"_csrf": {token}, "_idempotency_key": {key},
		"phone": {"(415) 555-0555"}, "reason": {"bounce"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/suppression?notice=suppressed" {
		t.Fatalf("add: %d to %q\n%s", a.status, a.header.Get("Location"), a.body)
	}
	added := o.optin.entries[0]
	if *added.ContactPhoneID != "01JPH0NE000000000000000555" || added.Reason != "bounce" || o.optin.keys[len(o.optin.keys)-1] != key {
		t.Errorf("added %+v with keys %v, want the contact's phone record with the form's key", added, o.optin.keys)
	}
	optinWant(t, b.open(t, "/dashboard/suppression?notice=suppressed"), "list after add", "•••• 0555", "it receives no SMS")

	// Remove: the entry goes, with the form's key; a STOP entry is refused
	// with the service's reason; unknown and malformed ids are 404.
	list = b.open(t, "/dashboard/suppression")
	rm := url.Values{"_csrf": {csrf(t, list)}, "_idempotency_key": {optinIdemKey(t, list)}}
	if a := b.do(t, http.MethodPost, "/dashboard/suppression/"+entryS+"/remove", url.Values{}); a.status != 419 {
		t.Errorf("remove without csrf = %d, want 419", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/suppression/"+entryS+"/remove", rm)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/suppression?notice=unsuppressed" {
		t.Fatalf("remove: %d %q", a.status, a.header.Get("Location"))
	}
	if strings.Contains(b.open(t, "/dashboard/suppression").body, "•••• 0123") || o.optin.keys[len(o.optin.keys)-1] != rm.Get("_idempotency_key") {
		t.Error("the removed entry is still listed, or was removed without the form's key")
	}
	a = b.do(t, http.MethodPost, "/dashboard/suppression/"+entryT+"/remove", rm)
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "only their START reply lifts it") {
		t.Errorf("remove a STOP entry: %d\n%s", a.status, a.body)
	}
	// A well-formed entry id the fake optin-svc does not hold: its 404 is the page's.
	const unknownEntry = "01JS0PPRESS000000000000009"
	if a := b.do(t, http.MethodPost, "/dashboard/suppression/"+unknownEntry+"/remove", rm); a.status != http.StatusNotFound {
		t.Errorf("remove unknown = %d, want 404", a.status)
	}
	if a := b.do(t, http.MethodPost, "/dashboard/suppression/"+strings.Repeat("x", 300)+"/remove", rm); a.status != http.StatusNotFound {
		t.Errorf("remove malformed = %d, want 404", a.status)
	}
	owner := o.userToken(t, "owner@example.com")
	o.checkTokens(t, owner)
	for _, tok := range o.phones.tokens {
		if tok != owner {
			t.Fatalf("contacts-svc called with %q, want the user's internal token", tok)
		}
	}

	// A developer has no suppression ability.
	d := o.signedIn(t, "dev@example.com")
	d.wantGet(t, "/dashboard/suppression", http.StatusForbidden, "developer GET suppression")
	acct := d.open(t, "/dashboard/account")
	for _, path := range []string{"/dashboard/suppression", "/dashboard/suppression/" + entryT + "/remove"} {
		if a := d.do(t, http.MethodPost, path, url.Values{"_csrf": {csrf(t, acct)}, "phone": {"+14155550555"}, "reason": {"manual"}}); a.status != http.StatusForbidden {
			t.Errorf("developer POST %s = %d, want 403", path, a.status)
		}
	}
}

func TestOptInOff(t *testing.T) {
	t.Parallel()
	o := newOptInEnv(t, member{"owner@example.com", "Owner", "owner"})
	o.optin.off = true
	b := o.signedIn(t, "owner@example.com")
	for _, path := range []string{"/dashboard/opt-in-codes", "/dashboard/opt-in-codes/" + codeA, "/dashboard/opt-ins"} {
		a := b.get(t, path)
		if a.status != http.StatusNotFound || !strings.Contains(a.body, "Opt-in is off") {
			t.Errorf("GET %s with opt-in off: %d\n%s", path, a.status, a.body)
		}
	}
	acct := b.open(t, "/dashboard/account")
	a := b.do(t, http.MethodPost, "/dashboard/opt-in-codes", url.Values{"_csrf": {csrf(t, acct)}, "name": {"X"}})
	if a.status != http.StatusNotFound || !strings.Contains(a.body, "Opt-in is off") {
		t.Errorf("create with opt-in off: %d", a.status)
	}
	// The suppression list does not depend on opt-in.
	b.open(t, "/dashboard/suppression")
}
