package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// TestContactsEndToEnd drives contacts-svc through the real gateway over
// HTTPS, on one devstack shared by every subtest: the contact lifecycle and
// its events on the broker, pagination links, tenant isolation, idempotency
// keys, abilities and bad input. Requests use the demo token, which carries
// every ability (so the internal token the gateway forwards is as large as
// they get).
func TestContactsEndToEnd(t *testing.T) {
	st := startStack(t, tempRoot(t))
	var c *contactsE2E
	defer func() {
		// The client's keep-alive connections go first: the gateway's
		// shutdown waits for a connection that never carried a request
		// (one the client dialled for a burst and then kept idle) until its
		// 10 s drain timeout, and reports that as an error.
		if c != nil {
			c.hc.CloseIdleConnections()
		}
		st.stop(t)
	}()
	c = newContactsE2E(t, st.info)

	t.Run("postgres log goes to pg.log", func(t *testing.T) { checkPGLog(t, st) })
	t.Run("lifecycle and events", c.lifecycle)
	t.Run("pagination", c.pagination)
	t.Run("tenant isolation", c.isolation)
	t.Run("idempotent replay and conflict", c.idempotency)
	t.Run("concurrent creates with one key", c.concurrentCreates)
	t.Run("token without api:create-contact", c.forbidden)
	t.Run("bad input", c.badInput)
}

// checkPGLog: the server's own lines land in Root/pg.log, not in the
// devstack's output, and the output names the file.
func checkPGLog(t *testing.T, st *running) {
	const ready = "database system is ready to accept connections"
	path := filepath.Join(st.info.Root, "pg.log")
	if raw := readBytes(t, path); !bytes.Contains(raw, []byte(ready)) {
		t.Errorf("pg.log lacks %q:\n%s", ready, raw)
	}
	out := st.logs.String()
	if strings.Contains(out, ready) {
		t.Errorf("postgres' own lines still reach the devstack output")
	}
	if want := "postgres listening on 127.0.0.1:"; !strings.Contains(out, want) || !strings.Contains(out, "(its log: "+path+")") {
		t.Errorf("the output does not name %s on its %q line", path, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("pg.log: stat error %v, want a file of mode 600", err)
	}
}

// contactsE2E calls contacts-svc through the gateway.
type contactsE2E struct {
	*e2e
	token string // the demo token: every ability
	next  int    // the next free phone number suffix
}

// noRateLimit is the per-token request limit the test's tenants get, so the
// gateway's rate limiter never answers.
const noRateLimit = 1_000_000

func newContactsE2E(t *testing.T, info Info) *contactsE2E {
	t.Helper()
	c := &contactsE2E{e2e: newE2E(t, info), token: info.DemoToken, next: 100}
	limit := noRateLimit
	if _, err := c.admin.UpdateTenant(context.Background(), info.DemoTenantID, client.TenantInput{
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("raising the demo tenant's request limit: %v", err)
	}
	return c
}

// phone returns an unused San Francisco number: national and E.164 forms.
func (c *contactsE2E) phone() (national, e164 string) {
	n := c.next
	c.next++
	return fmt.Sprintf("(415) 555-%04d", n), fmt.Sprintf("+1415555%04d", n)
}

// tenant creates a tenant (default region region) with an all-abilities
// token and no practical rate limit.
func (c *contactsE2E) tenant(t *testing.T, name, region string) (id, token string) {
	t.Helper()
	ctx := context.Background()
	limit := noRateLimit
	ten, err := c.admin.CreateTenant(ctx, client.TenantInput{
		Name: &name, DefaultRegion: &region, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	})
	if err != nil {
		t.Fatalf("creating tenant %s: %v", name, err)
	}
	tok, err := c.admin.CreateToken(ctx, ten.ID, client.TokenInput{Name: "e2e " + name, Abilities: authz.All()})
	if err != nil {
		t.Fatalf("minting a token for %s: %v", name, err)
	}
	return ten.ID, tok.Token
}

// send makes one request; safe for concurrent use (no *testing.T).
func (c *contactsE2E) send(method, path, token, body string, header map[string]string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.info.GatewayURL+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}, err
}

func (c *contactsE2E) call(t *testing.T, method, path, token, body string, header map[string]string) response {
	t.Helper()
	r, err := c.send(method, path, token, body, header)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// wireContact is a contact as the API shows it; keys lists the JSON keys
// present (deleted_at and the opt-in fields appear only on some reads).
type wireContact struct {
	ID          string          `json:"id"`
	ExternalID  *string         `json:"external_id"`
	FirstName   *string         `json:"first_name"`
	LastName    *string         `json:"last_name"`
	Phone       string          `json:"phone"`
	PhoneID     string          `json:"phone_id"`
	Email       *string         `json:"email"`
	UpdatedAt   string          `json:"updated_at"`
	DeletedAt   *string         `json:"deleted_at"`
	OptInStatus string          `json:"opt_in_status"`
	Consents    json.RawMessage `json:"consents"`
	keys        map[string]json.RawMessage
}

func (w wireContact) has(key string) bool { _, ok := w.keys[key]; return ok }

// contactOf decodes {"data": contact} after checking the status.
func (c *contactsE2E) contactOf(t *testing.T, r response, status int) wireContact {
	t.Helper()
	c.expectStatus(t, r, status)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	var w wireContact
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if err := json.Unmarshal(env.Data, &w); err != nil {
		t.Fatalf("data %s: %v", env.Data, err)
	}
	if err := json.Unmarshal(env.Data, &w.keys); err != nil {
		t.Fatal(err)
	}
	return w
}

// contactPage is a decoded collection of contacts.
type contactPage struct {
	Data  []wireContact `json:"data"`
	Links struct {
		First, Last string
		Prev, Next  *string
	} `json:"links"`
	Meta struct {
		CurrentPage int `json:"current_page"`
		PerPage     int `json:"per_page"`
		Total       int `json:"total"`
		LastPage    int `json:"last_page"`
	} `json:"meta"`
}

func (c *contactsE2E) list(t *testing.T, token, query string) contactPage {
	t.Helper()
	r := c.call(t, http.MethodGet, "/api/v1/contacts?"+query, token, "", nil)
	c.expectStatus(t, r, http.StatusOK)
	var p contactPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("list body %s: %v", r.body, err)
	}
	return p
}

func (p contactPage) ids() []string {
	out := make([]string, len(p.Data))
	for i, w := range p.Data {
		out[i] = w.ID
	}
	return out
}

// create posts body with the demo token and expects 201.
func (c *contactsE2E) create(t *testing.T, token, body string) wireContact {
	t.Helper()
	return c.contactOf(t, c.call(t, http.MethodPost, "/api/v1/contacts", token, body, nil), http.StatusCreated)
}

// expectDetail checks a 422 validation_failed naming field in details.
func (c *contactsE2E) expectDetail(t *testing.T, r response, field string) {
	t.Helper()
	c.expectError(t, r, http.StatusUnprocessableEntity, "validation_failed")
	var env struct {
		Error struct {
			Details map[string][]string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || len(env.Error.Details[field]) == 0 {
		t.Errorf("details lack %q: %s", field, r.body)
	}
}

func orNull(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// lifecycle: create (national phone), show, PUT, PATCH, DELETE, list with
// trashed, restore, restore of a live contact; then the events on the broker.
func (c *contactsE2E) lifecycle(t *testing.T) {
	ext := "e2e-crud-" + ids.New()
	national, e164 := c.phone()
	created := c.create(t, c.token, fmt.Sprintf(
		`{"external_id":%q,"first_name":"Ada","last_name":"Lovelace","phone":%q,"email":"ada@example.com"}`, ext, national))
	if created.Phone != e164 || !ids.Valid(created.ID) || !ids.Valid(created.PhoneID) || created.has("deleted_at") {
		t.Fatalf("created %+v: want phone %s, ULID ids, no deleted_at", created, e164)
	}
	path := "/api/v1/contacts/" + created.ID
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"show", func(t *testing.T) { c.checkShow(t, path, e164) }},
		{"put", func(t *testing.T) { c.checkPut(t, path, ext) }},
		{"patch", func(t *testing.T) { c.checkPatch(t, path) }},
		{"delete and list with trashed", func(t *testing.T) { c.checkDelete(t, path, created.ID, ext) }},
		{"restore", func(t *testing.T) { c.checkRestore(t, path, created.ID) }},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			return
		}
	}
	t.Run("events on the broker", func(t *testing.T) { c.checkEvents(t, created.ID) })
}

func (c *contactsE2E) checkShow(t *testing.T, path, e164 string) {
	got := c.contactOf(t, c.call(t, http.MethodGet, path, c.token, "", nil), http.StatusOK)
	if got.OptInStatus != "none" || string(got.Consents) != "[]" {
		t.Errorf("opt_in_status %q, consents %s: want \"none\" and []", got.OptInStatus, got.Consents)
	}
	if got.Phone != e164 || orNull(got.FirstName) != "Ada" || orNull(got.Email) != "ada@example.com" || got.has("deleted_at") {
		t.Errorf("show = %+v", got)
	}
}

func (c *contactsE2E) checkPut(t *testing.T, path, ext string) {
	_, e164 := c.phone()
	body := fmt.Sprintf(`{"external_id":%q,"first_name":"Ada","last_name":"King","phone":%q}`, ext, e164)
	got := c.contactOf(t, c.call(t, http.MethodPut, path, c.token, body, nil), http.StatusOK)
	if orNull(got.LastName) != "King" || got.Phone != e164 || got.Email != nil {
		t.Errorf("PUT replaces the mutable fields: got %+v, want last_name King, phone %s, email null", got, e164)
	}
}

func (c *contactsE2E) checkPatch(t *testing.T, path string) {
	got := c.contactOf(t, c.call(t, http.MethodPatch, path, c.token, `{"first_name":"Augusta"}`, nil), http.StatusOK)
	if orNull(got.FirstName) != "Augusta" || orNull(got.LastName) != "King" {
		t.Errorf("PATCH changes only what it sends: got %+v", got)
	}
}

func (c *contactsE2E) checkDelete(t *testing.T, path, id, ext string) {
	r := c.call(t, http.MethodDelete, path, c.token, "", nil)
	c.expectStatus(t, r, http.StatusNoContent)
	if len(r.body) != 0 {
		t.Errorf("DELETE body %q, want none", r.body)
	}
	c.expectError(t, c.call(t, http.MethodGet, path, c.token, "", nil), http.StatusNotFound, "resource_not_found")
	trashed := c.contactOf(t, c.call(t, http.MethodGet, path+"?with_trashed=1", c.token, "", nil), http.StatusOK)
	if trashed.DeletedAt == nil {
		t.Error("GET with_trashed=1 of a deleted contact: deleted_at is null")
	}
	if live := c.list(t, c.token, "external_id="+url.QueryEscape(ext)); live.Meta.Total != 0 {
		t.Errorf("list without with_trashed shows the deleted contact: %v", live.ids())
	}
	all := c.list(t, c.token, "with_trashed=1&external_id="+url.QueryEscape(ext))
	if len(all.Data) != 1 || all.Data[0].ID != id || all.Data[0].DeletedAt == nil {
		t.Errorf("list with_trashed=1: %+v, want the contact with deleted_at", all.Data)
	}
}

func (c *contactsE2E) checkRestore(t *testing.T, path, id string) {
	got := c.contactOf(t, c.call(t, http.MethodPost, path+"/restore", c.token, "{}", nil), http.StatusOK)
	if got.ID != id || got.DeletedAt != nil {
		t.Errorf("restore = %+v", got)
	}
	c.contactOf(t, c.call(t, http.MethodGet, path, c.token, "", nil), http.StatusOK)

	r := c.call(t, http.MethodPost, path+"/restore", c.token, "", nil)
	c.expectError(t, r, http.StatusUnprocessableEntity, "invalid_transition")
	var env struct {
		Error struct {
			Message string            `json:"message"`
			Details map[string]string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Error.Message != "active -> active" || env.Error.Details["from"] != "active" || env.Error.Details["to"] != "active" {
		t.Errorf("restore of a live contact: %s, want message \"active -> active\" and details from/to", r.body)
	}
}

// checkEvents reads paylane.contacts.v1 from the start until a marker
// contact created afterwards, and expects the lifecycle's events in order.
// The topic's key is the tenant, so one tenant's events keep their order.
func (c *contactsE2E) checkEvents(t *testing.T, id string) {
	_, markerPhone := c.phone()
	marker := c.create(t, c.token, fmt.Sprintf(`{"first_name":"Marker","phone":%q}`, markerPhone))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:     c.info.Brokers,
		GroupID:     "devstack-contacts-e2e-" + ids.New(),
		GroupTopics: []string{events.TopicContacts},
		StartOffset: kafka.FirstOffset,
		MaxWait:     100 * time.Millisecond,
	})
	defer r.Close()
	var types []string
	for {
		msg, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s (got %v so far): %v", events.TopicContacts, types, err)
		}
		var env events.Envelope
		var data struct {
			ID        string  `json:"id"`
			DeletedAt *string `json:"deleted_at"`
		}
		if err := json.Unmarshal(msg.Value, &env); err != nil || env.Decode(&data) != nil {
			t.Fatalf("event %s: not an envelope with a contact", msg.Value)
		}
		if env.TenantID != c.info.DemoTenantID || string(msg.Key) != env.TenantID {
			continue
		}
		if data.ID == marker.ID {
			break
		}
		if data.ID == id {
			if data.DeletedAt != nil {
				env.Type += " (deleted_at set)"
			}
			types = append(types, env.Type)
		}
	}
	want := []string{"contact.created", "contact.updated", "contact.updated",
		"contact.deleted (deleted_at set)", "contact.updated (deleted_at set)", "contact.restored", "contact.updated"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events of the contact (-want +got):\n%s", diff)
	}
}

// pagination: absolute links on the gateway's host that keep the filters,
// per_page capped at 100, per_page=0 refused.
func (c *contactsE2E) pagination(t *testing.T) {
	_, token := c.tenant(t, "E2E contacts pages", "US")
	var made []string
	var national string
	for range 3 {
		var e164 string
		national, e164 = c.phone()
		made = append(made, c.create(t, token, fmt.Sprintf(`{"phone":%q}`, e164)).ID)
	}
	byPhone := c.list(t, token, "per_page=1&phone="+url.QueryEscape(national))
	if diff := cmp.Diff([]string{made[2]}, byPhone.ids()); diff != "" {
		t.Errorf("phone filter in national format (-want +got):\n%s", diff)
	}
	c.checkLink(t, "first (phone filter)", byPhone.Links.First, map[string]string{"phone": national, "per_page": "1"}, "1")
	first := c.list(t, token, "with_trashed=1&per_page=2")
	want := map[string]string{"with_trashed": "1", "per_page": "2"}
	c.checkLink(t, "first", first.Links.First, want, "1")
	c.checkLink(t, "last", first.Links.Last, want, "2")
	if first.Links.Prev != nil || first.Links.Next == nil {
		t.Fatalf("page 1: prev %v, next %v: want null and a link", first.Links.Prev, first.Links.Next)
	}
	c.checkLink(t, "next", *first.Links.Next, want, "2")
	if got := [4]int{first.Meta.CurrentPage, first.Meta.PerPage, first.Meta.Total, first.Meta.LastPage}; got != [4]int{1, 2, 3, 2} {
		t.Errorf("meta current_page, per_page, total, last_page = %v, want [1 2 3 2]", got)
	}
	second := c.list(t, token, strings.SplitN(*first.Links.Next, "?", 2)[1])
	if second.Links.Next != nil || second.Links.Prev == nil {
		t.Errorf("page 2: next %v, prev %v: want null and a link", second.Links.Next, second.Links.Prev)
	}
	newestFirst := []string{made[2], made[1], made[0]}
	if diff := cmp.Diff(newestFirst, append(first.ids(), second.ids()...)); diff != "" {
		t.Errorf("pages 1 and 2, newest first (-want +got):\n%s", diff)
	}
	if capped := c.list(t, token, "per_page=500"); capped.Meta.PerPage != 100 || len(capped.Data) != 3 {
		t.Errorf("per_page=500: meta.per_page %d, %d items; want 100 and 3", capped.Meta.PerPage, len(capped.Data))
	}
	c.expectDetail(t, c.call(t, http.MethodGet, "/api/v1/contacts?per_page=0", token, "", nil), "per_page")
}

// checkLink: an absolute https://localhost:<port> link to the list with
// the query's parameters and the given page.
func (c *contactsE2E) checkLink(t *testing.T, name, link string, query map[string]string, pageNo string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Scheme+"://"+u.Host != c.info.GatewayURL || u.Path != "/api/v1/contacts" {
		t.Errorf("links.%s = %q, want %s/api/v1/contacts?...", name, link, c.info.GatewayURL)
		return
	}
	q := u.Query()
	for k, v := range query {
		if q.Get(k) != v {
			t.Errorf("links.%s = %q lost %s=%s", name, link, k, v)
		}
	}
	if q.Get("page") != pageNo {
		t.Errorf("links.%s = %q, want page=%s", name, link, pageNo)
	}
}

// isolation: tenant B sees none of the demo tenant's contacts (a live and a
// deleted one) on any route, and its writes change nothing of them.
func (c *contactsE2E) isolation(t *testing.T) {
	_, live := c.phone()
	ext := "e2e-iso-" + ids.New()
	a1 := c.create(t, c.token, fmt.Sprintf(`{"external_id":%q,"first_name":"Alice","phone":%q}`, ext, live))
	_, gone := c.phone()
	a2 := c.create(t, c.token, fmt.Sprintf(`{"first_name":"Gone","phone":%q}`, gone))
	c.expectStatus(t, c.call(t, http.MethodDelete, "/api/v1/contacts/"+a2.ID, c.token, "", nil), http.StatusNoContent)

	_, tokenB := c.tenant(t, "E2E contacts B", "GB")
	for _, id := range []string{a1.ID, a2.ID} {
		path := "/api/v1/contacts/" + id
		for _, rq := range []struct{ method, path, body string }{
			{http.MethodGet, path, ""},
			{http.MethodGet, path + "?with_trashed=1", ""},
			{http.MethodPut, path, `{"first_name":"Mallory","phone":"+14155559999"}`},
			{http.MethodPatch, path, `{"first_name":"Mallory"}`},
			{http.MethodDelete, path, ""},
			{http.MethodPost, path + "/restore", "{}"},
		} {
			t.Run(rq.method+" "+strings.TrimPrefix(rq.path, "/api/v1/contacts/"), func(t *testing.T) {
				c.expectError(t, c.call(t, rq.method, rq.path, tokenB, rq.body, nil), http.StatusNotFound, "resource_not_found")
			})
		}
	}
	// B's own contacts: a national number read in B's region (GB), and the
	// number of A's live contact, which is B's to use too.
	b1 := c.create(t, tokenB, `{"phone":"020 7946 0958"}`)
	b2 := c.create(t, tokenB, fmt.Sprintf(`{"phone":%q}`, live))
	if b1.Phone != "+442079460958" {
		t.Errorf("a GB national number in tenant B read as %q, want +442079460958", b1.Phone)
	}
	if diff := cmp.Diff([]string{b2.ID, b1.ID}, c.list(t, tokenB, "with_trashed=1").ids()); diff != "" {
		t.Errorf("B's list holds only B's contacts (-want +got):\n%s", diff)
	}
	if p := c.list(t, tokenB, "with_trashed=1&external_id="+url.QueryEscape(ext)); p.Meta.Total != 0 {
		t.Errorf("B finds A's external id: %v", p.ids())
	}
	after := c.contactOf(t, c.call(t, http.MethodGet, "/api/v1/contacts/"+a1.ID, c.token, "", nil), http.StatusOK)
	if orNull(after.FirstName) != "Alice" || after.UpdatedAt != a1.UpdatedAt {
		t.Errorf("A's contact changed after B's attempts: %+v", after)
	}
	c.expectError(t, c.call(t, http.MethodGet, "/api/v1/contacts/"+a2.ID, c.token, "", nil), http.StatusNotFound, "resource_not_found")
}

// idempotency: the same key and body replay the first answer byte for
// byte; the same key with another body is a conflict; one contact results.
func (c *contactsE2E) idempotency(t *testing.T) {
	ext := "e2e-idem-" + ids.New()
	_, e164 := c.phone()
	body := fmt.Sprintf(`{"external_id":%q,"first_name":"Ada","phone":%q}`, ext, e164)
	key := map[string]string{"Idempotency-Key": "e2e-" + ids.New()}
	first := c.call(t, http.MethodPost, "/api/v1/contacts", c.token, body, key)
	c.expectStatus(t, first, http.StatusCreated)
	replay := c.call(t, http.MethodPost, "/api/v1/contacts", c.token, body, key)
	if replay.status != first.status || !bytes.Equal(replay.body, first.body) {
		t.Errorf("replay %d %s, want %d %s byte for byte", replay.status, replay.body, first.status, first.body)
	}
	if got := replay.header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("Idempotent-Replayed %q, want true", got)
	}
	if got, want := replay.header.Get("Original-Request-Id"), first.header.Get("X-Request-Id"); got != want {
		t.Errorf("Original-Request-Id %q, want the first request's %q", got, want)
	}
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Error("the first answer says it was replayed")
	}
	other := strings.Replace(body, `"Ada"`, `"Grace"`, 1)
	c.expectError(t, c.call(t, http.MethodPost, "/api/v1/contacts", c.token, other, key), http.StatusConflict, "idempotency_conflict")
	if p := c.list(t, c.token, "external_id="+url.QueryEscape(ext)); p.Meta.Total != 1 {
		t.Errorf("%d contacts with external_id %s, want 1", p.Meta.Total, ext)
	}
}

// concurrentCreates: 20 simultaneous creates with one key make one contact;
// every 201 carries the same body.
func (c *contactsE2E) concurrentCreates(t *testing.T) {
	const n = 20
	ext := "e2e-race-" + ids.New()
	_, e164 := c.phone()
	body := fmt.Sprintf(`{"external_id":%q,"phone":%q}`, ext, e164)
	key := map[string]string{"Idempotency-Key": "e2e-" + ids.New()}
	results := make([]response, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], errs[i] = c.send(http.MethodPost, "/api/v1/contacts", c.token, body, key) })
	}
	wg.Wait()
	var bodies [][]byte
	originals := 0
	for i, r := range results {
		switch {
		case errs[i] != nil:
			t.Errorf("request %d: %v", i, errs[i])
		case r.status == http.StatusCreated:
			bodies = append(bodies, r.body)
			if r.header.Get("Idempotent-Replayed") == "" {
				originals++
			}
		case r.status == http.StatusConflict && bytes.Contains(r.body, []byte(`"idempotency_in_progress"`)):
		default:
			t.Errorf("request %d: %d %s", i, r.status, r.body)
		}
	}
	if originals != 1 || len(bodies) == 0 || slices.ContainsFunc(bodies, func(b []byte) bool { return !bytes.Equal(b, bodies[0]) }) {
		t.Errorf("%d first answers among %d 201s (want 1, every body equal)", originals, len(bodies))
	}
	if p := c.list(t, c.token, "external_id="+url.QueryEscape(ext)); p.Meta.Total != 1 {
		t.Errorf("%d contacts with external_id %s after %d concurrent creates with one key, want 1", p.Meta.Total, ext, n)
	}
}

// forbidden: a token with every ability but api:create-contact may list
// and may not create.
func (c *contactsE2E) forbidden(t *testing.T) {
	abilities := slices.DeleteFunc(authz.All(), func(a string) bool { return a == "api:create-contact" })
	tok, err := c.admin.CreateToken(context.Background(), c.info.DemoTenantID, client.TokenInput{Name: "e2e no create", Abilities: abilities})
	if err != nil {
		t.Fatal(err)
	}
	ext := "e2e-forbidden-" + ids.New()
	_, e164 := c.phone()
	r := c.call(t, http.MethodPost, "/api/v1/contacts", tok.Token, fmt.Sprintf(`{"external_id":%q,"phone":%q}`, ext, e164), nil)
	c.expectError(t, r, http.StatusForbidden, "forbidden")
	if p := c.list(t, tok.Token, "external_id="+url.QueryEscape(ext)); p.Meta.Total != 0 {
		t.Errorf("the refused create wrote a contact: %v", p.ids())
	}
}

// badInput: what the gateway passes on from contacts-svc for broken requests.
func (c *contactsE2E) badInput(t *testing.T) {
	_, e164 := c.phone()
	tests := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"invalid JSON", http.MethodPost, "/api/v1/contacts", `{"phone":`, http.StatusBadRequest, "bad_request", ""},
		{"unknown field", http.MethodPost, "/api/v1/contacts", fmt.Sprintf(`{"phone":%q,"nickname":"Ada"}`, e164), http.StatusUnprocessableEntity, "validation_failed", "nickname"},
		{"phone missing", http.MethodPost, "/api/v1/contacts", `{"first_name":"Ada"}`, http.StatusUnprocessableEntity, "validation_failed", "phone"},
		{"not an object", http.MethodPost, "/api/v1/contacts", `[]`, http.StatusUnprocessableEntity, "validation_failed", ""},
		{"non-ULID id", http.MethodGet, "/api/v1/contacts/not-a-ulid", "", http.StatusNotFound, "resource_not_found", ""},
		{"non-ULID id on PATCH", http.MethodPatch, "/api/v1/contacts/12345", `{"first_name":"Ada"}`, http.StatusNotFound, "resource_not_found", ""},
		{"unknown ULID", http.MethodDelete, "/api/v1/contacts/" + ids.New(), "", http.StatusNotFound, "resource_not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.call(t, tt.method, tt.path, c.token, tt.body, nil)
			if tt.field != "" {
				c.expectDetail(t, r, tt.field)
				return
			}
			c.expectError(t, r, tt.status, tt.code)
		})
	}
}
