package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paylane/paylane/identity-svc/client/clienttest"
	webhooks "github.com/paylane/paylane/webhook-svc/client"
)

// webhookDetail is the fake webhook-svc's state behind the endpoint page:
// endpoints by id (each visible to one internal token, as a tenant's), their
// deliveries newest first, the tenant's recent failures, and every write
// with the token and Idempotency-Key it came with.
type webhookDetail struct {
	endpoints  map[string]*webhooks.Endpoint
	owners     map[string]string // endpoint id → token
	deliveries map[string][]webhooks.Delivery
	failures   map[string][]webhooks.Failure // token → failures
	failErr    error
	keys       map[string]bool // rotate keys already used
	writes     []webhookWrite
	reads      []string // tokens of the reads
}

type webhookWrite struct{ what, token, key, id string }

// addEndpoint gives token's tenant an endpoint with n deliveries.
func (f *fakeWebhooks) addEndpoint(token string, e webhooks.Endpoint, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := &f.detail
	if d.endpoints == nil {
		d.endpoints, d.owners, d.deliveries = map[string]*webhooks.Endpoint{}, map[string]string{}, map[string][]webhooks.Delivery{}
		d.failures, d.keys = map[string][]webhooks.Failure{}, map[string]bool{}
	}
	d.endpoints[e.ID], d.owners[e.ID] = &e, token
	for i := n; i > 0; i-- {
		code := 200
		status := "succeeded"
		if i%2 == 0 {
			code, status = 503, "failed"
		}
		d.deliveries[e.ID] = append(d.deliveries[e.ID], webhooks.Delivery{ID: fmt.Sprintf("D%d", i), EndpointID: e.ID,
			EventID: fmt.Sprintf("EV%d", i), EventType: "contact.created", Status: status, AttemptCount: 1, ResponseStatus: &code,
			CreatedAt: "2026-11-20T10:00:00Z"})
	}
	f.byToken[token] = append(f.byToken[token], e)
}

func (f *fakeWebhooks) endpoint(token, id string) (*webhooks.Endpoint, error) {
	e := f.detail.endpoints[id]
	if e == nil || f.detail.owners[id] != token {
		return nil, notFound()
	}
	return e, nil
}

func (f *fakeWebhooks) Endpoint(_ context.Context, token, id string) (*webhooks.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.detail.reads = append(f.detail.reads, token)
	e, err := f.endpoint(token, id)
	if err != nil {
		return nil, err
	}
	out := *e
	return &out, nil
}

func (f *fakeWebhooks) UpdateEndpoint(_ context.Context, token, key, id string, in webhooks.EndpointPatch) (*webhooks.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, err := f.endpoint(token, id)
	if err != nil {
		return nil, err
	}
	f.detail.writes = append(f.detail.writes, webhookWrite{"update", token, key, id})
	if in.IsActive != nil {
		e.IsActive = *in.IsActive
		if e.IsActive {
			e.ConsecutiveFailures, e.DisabledAt = 0, nil
		}
	}
	out := *e
	return &out, nil
}

func (f *fakeWebhooks) RotateSecret(_ context.Context, token, key, id string) (*webhooks.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, err := f.endpoint(token, id)
	if err != nil {
		return nil, err
	}
	f.detail.writes = append(f.detail.writes, webhookWrite{"rotate", token, key, id})
	out := *e
	if !f.detail.keys[key] {
		f.detail.keys[key] = true
		out.SigningSecret = fmt.Sprintf("whsec_rotated%d", len(f.detail.writes))
	}
	return &out, nil
}

func (f *fakeWebhooks) Deliveries(_ context.Context, token, id string, opts webhooks.DeliveryOptions) (*webhooks.DeliveryPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.detail.reads = append(f.detail.reads, token)
	if _, err := f.endpoint(token, id); err != nil {
		return nil, err
	}
	var match []webhooks.Delivery
	for _, d := range f.detail.deliveries[id] {
		if (opts.Status == "" || d.Status == opts.Status) && (opts.EventType == "" || d.EventType == opts.EventType) {
			match = append(match, d)
		}
	}
	per, page := max(opts.PerPage, 1), max(opts.Page, 1)
	from, to := min((page-1)*per, len(match)), min(page*per, len(match))
	return &webhooks.DeliveryPage{Data: match[from:to],
		Meta: webhooks.Meta{CurrentPage: page, PerPage: per, Total: len(match), LastPage: max(1, (len(match)+per-1)/per)}}, nil
}

func (f *fakeWebhooks) RecentFailures(_ context.Context, token string, limit int) ([]webhooks.Failure, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.detail.reads = append(f.detail.reads, token)
	if f.detail.failErr != nil {
		return nil, f.detail.failErr
	}
	list := f.detail.failures[token]
	return list[:min(limit, len(list))], nil
}

func (f *fakeWebhooks) lastWrite() webhookWrite {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.detail.writes) == 0 {
		return webhookWrite{}
	}
	return f.detail.writes[len(f.detail.writes)-1]
}

func (f *fakeWebhooks) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.detail.reads)
}

const endpointULID = "01JENDP0XNT000000000000001"

func TestWebhookEndpointPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"dev@example.com", "Dev", "developer"})
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	token := clienttest.UserTokenOf(tenant, owner.ID)
	e.hooks.addEndpoint(token, webhooks.Endpoint{ID: endpointULID, Name: "orders", URL: "https://example.com/hooks",
		SubscribedEvents: []string{"contact.*"}, IsActive: true, ConsecutiveFailures: 2, CreatedAt: "2026-11-01T09:30:00Z"}, 30)
	b := e.signedIn(t, "owner@example.com")

	list := b.open(t, "/dashboard/webhooks")
	if !strings.Contains(list.body, `href="/dashboard/webhooks/`+endpointULID+`"`) {
		t.Errorf("the list does not link the endpoint to its page:\n%s", list.body)
	}
	a := b.open(t, "/dashboard/webhooks/"+endpointULID)
	for _, want := range []string{"https://example.com/hooks", "Delivery history", "30 in all", "HTTP 503", "contact.created",
		"1 Nov 2026, 09:30 UTC", "Rotate signing secret", `href="/dashboard/webhooks/` + endpointULID + `?page=2" rel="next"`,
		`<th scope="col">Event</th>`, `<label for="f-status">`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("endpoint page lacks %q", want)
		}
	}
	if strings.Contains(a.body, "Enable endpoint") {
		t.Error("an active endpoint offers Enable")
	}
	a = b.open(t, "/dashboard/webhooks/"+endpointULID+"?status=failed&page=2")
	if !strings.Contains(a.body, `?page=1&amp;status=failed" rel="prev"`) && !strings.Contains(a.body, `?status=failed" rel="prev"`) {
		t.Errorf("the Previous link drops the filter:\n%s", a.body)
	}
	if !strings.Contains(a.body, `<option value="failed" selected>`) || !strings.Contains(a.body, "15 in all") {
		t.Errorf("the filter is not rendered back")
	}
	for _, tok := range e.hooks.detail.reads {
		if tok != token {
			t.Fatalf("webhook-svc read with token %q, want the owner's internal token", tok)
		}
	}

	// Malformed queries and ids: 422 or 404, and no history read.
	before := e.hooks.readCount()
	for _, q := range []string{"?status=bogus", "?page=abc", "?page=0", "?event_type=nope"} {
		if a := b.get(t, "/dashboard/webhooks/"+endpointULID+q); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "Correct the filter") {
			t.Errorf("GET %s = %d, want 422 with a message", q, a.status)
		}
	}
	if n := e.hooks.readCount() - before; n != 4 {
		t.Errorf("%d reads for 4 refused queries, want only the endpoint's (4)", n)
	}
	b.wantGet(t, "/dashboard/webhooks/not-an-id", http.StatusNotFound, "a malformed id")
	b.wantGet(t, "/dashboard/webhooks/%00", http.StatusNotFound, "a NUL id")
	b.wantGet(t, "/dashboard/webhooks/"+strings.Repeat("A", 300), http.StatusNotFound, "a long id")
	b.wantGet(t, "/dashboard/webhooks/01JENDP0XNT000000000000009", http.StatusNotFound, "an unknown endpoint")

	// Rotate the secret: shown once; the form's key goes to webhook-svc, and
	// the same form sent again answers without a secret.
	page := b.open(t, "/dashboard/webhooks/"+endpointULID)
	form := url.Values{"_csrf": {csrf(t, page)}, "_idempotency_key": {"form-key-1"}}
	if a := b.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/rotate-secret", url.Values{"_idempotency_key": {"k"}}); a.status != 419 {
		t.Errorf("rotate without csrf = %d, want 419", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/rotate-secret", form)
	expectStatus(t, a, http.StatusOK)
	if !strings.Contains(a.body, `value="whsec_rotated1"`) || !strings.Contains(a.body, "shown only this once") {
		t.Errorf("the new secret is not shown:\n%s", a.body)
	}
	if w := e.hooks.lastWrite(); w.what != "rotate" || w.token != token || w.key != "form-key-1" || w.id != endpointULID {
		t.Errorf("rotate call %+v", w)
	}
	a = b.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/rotate-secret", form)
	if a.status != http.StatusOK || strings.Contains(a.body, "whsec_") || !strings.Contains(a.body, "already rotated") {
		t.Errorf("the repeated form: %d\n%s", a.status, a.body)
	}
	if a := b.do(t, http.MethodPost, "/dashboard/webhooks/bad/rotate-secret", form); a.status != http.StatusNotFound {
		t.Errorf("rotate of a malformed id = %d, want 404", a.status)
	}

	// A developer (no api:view-webhook or api:update-webhook in the fake
	// role) gets 403 on the page and on the writes.
	d := e.signedIn(t, "dev@example.com")
	d.wantGet(t, "/dashboard/webhooks/"+endpointULID, http.StatusForbidden, "developer endpoint page")
	devPage := d.open(t, "/dashboard/webhooks")
	if a := d.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/rotate-secret", url.Values{"_csrf": {csrf(t, devPage)}}); a.status != http.StatusForbidden {
		t.Errorf("developer rotate = %d, want 403", a.status)
	}
}

func TestWebhookEndpointReEnable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	token := clienttest.UserTokenOf(tenant, owner.ID)
	disabledAt := "2026-11-27T08:00:00Z"
	e.hooks.addEndpoint(token, webhooks.Endpoint{ID: endpointULID, Name: "failing", URL: "https://example.com/down",
		SubscribedEvents: []string{"*"}, ConsecutiveFailures: 50, DisabledAt: &disabledAt, CreatedAt: "2026-11-01T09:30:00Z"}, 0)
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/webhooks/"+endpointULID)
	for _, want := range []string{"Disabled by Paylane on 27 Nov 2026, 08:00 UTC", "Enable endpoint", "No deliveries yet"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("disabled endpoint page lacks %q", want)
		}
	}
	if a := b.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/enable", url.Values{}); a.status != 419 {
		t.Errorf("enable without csrf = %d, want 419", a.status)
	}
	a = b.do(t, http.MethodPost, "/dashboard/webhooks/"+endpointULID+"/enable", url.Values{"_csrf": {csrf(t, a)}, "_idempotency_key": {"enable-key"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/webhooks/"+endpointULID+"?notice=enabled" {
		t.Fatalf("enable = %d to %q", a.status, a.header.Get("Location"))
	}
	if w := e.hooks.lastWrite(); w.what != "update" || w.token != token || w.key != "enable-key" {
		t.Errorf("enable call %+v", w)
	}
	a = b.open(t, "/dashboard/webhooks/"+endpointULID+"?notice=enabled")
	if !strings.Contains(a.body, "active again") || strings.Contains(a.body, "Enable endpoint") || !strings.Contains(a.body, "Active: new events") {
		t.Errorf("after enabling:\n%s", a.body)
	}
}

func TestOverviewRecentFailedDeliveries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	fin, _ := e.identity.AddUser(tenant, "fin@example.com", "Fin", "finance", password)
	token := clienttest.UserTokenOf(tenant, owner.ID)
	e.hooks.addEndpoint(token, webhooks.Endpoint{ID: endpointULID, Name: "orders", URL: "https://example.com/hooks", IsActive: true}, 0)
	code := 500
	for i := range 7 {
		e.hooks.detail.failures[token] = append(e.hooks.detail.failures[token], webhooks.Failure{ID: fmt.Sprint("F", i), EndpointID: endpointULID,
			EndpointName: "orders", EventType: fmt.Sprintf("receivable.paid%d", i), Status: "retrying", AttemptCount: 2,
			ResponseStatus: &code, LastAttemptAt: "2026-11-28T12:00:00Z"})
	}
	b := e.signedIn(t, "owner@example.com")
	a := b.open(t, "/dashboard/overview")
	for _, want := range []string{"Recent failed deliveries", `<a href="/dashboard/webhooks/` + endpointULID + `">orders</a>`, "HTTP 500",
		"28 Nov 2026, 12:00 UTC", "receivable.paid4"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if strings.Contains(a.body, "receivable.paid5") {
		t.Error("the overview lists more than 5 failures")
	}

	// finance (no api:view-any-webhook in the fake role) sees no section
	// and its token never reaches webhook-svc.
	f := e.signedIn(t, "fin@example.com")
	a = f.open(t, "/dashboard/overview")
	if strings.Contains(a.body, "Recent failed deliveries") {
		t.Error("finance sees failed deliveries")
	}
	for _, tok := range e.hooks.detail.reads {
		if tok == clienttest.UserTokenOf(tenant, fin.ID) {
			t.Error("finance's token was sent to webhook-svc")
		}
	}

	// webhook-svc down: the overview still shows, with a sentence.
	e.hooks.mu.Lock()
	e.hooks.detail.failErr = errors.New("connection refused")
	e.hooks.mu.Unlock()
	a = b.open(t, "/dashboard/overview")
	if !strings.Contains(a.body, "cannot be read right now") || !strings.Contains(a.body, "Receivables") {
		t.Errorf("overview with webhook-svc down:\n%s", a.body)
	}
}

func TestCreateWebhookSendsTheFormsKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dev, _ := e.identity.AddUser(tenant, "dev@example.com", "Dev", "developer", password)
	b := e.signedIn(t, "dev@example.com")
	page := b.open(t, "/dashboard/webhooks")
	if !strings.Contains(page.body, `name="_idempotency_key" value="`) {
		t.Fatal("the create form carries no Idempotency-Key")
	}
	a := b.do(t, http.MethodPost, "/dashboard/webhooks", url.Values{"_csrf": {csrf(t, page)}, "_idempotency_key": {"create-key"},
		"name": {"orders"}, "url": {"https://example.com/h"}, "events": {"receivable.paid"}})
	expectStatus(t, a, http.StatusCreated)
	if w := e.hooks.lastWrite(); w.what != "create" || w.key != "create-key" || w.token != clienttest.UserTokenOf(tenant, dev.ID) {
		t.Errorf("create call %+v", w)
	}
}
