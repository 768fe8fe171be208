package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/paylane/paylane/identity-svc/client"
)

// exchange is one recorded request and its answer, read whole.
type exchange struct {
	req      *http.Request
	reqBody  []byte
	resp     *http.Response
	respBody []byte
	// invalid marks a request sent against the document on purpose (to
	// see the error answer): only its answer is validated.
	invalid bool
}

// recorder is a RoundTripper that keeps every exchange.
type recorder struct {
	next    http.RoundTripper
	mu      sync.Mutex
	invalid bool
	log     []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	r.mu.Lock()
	r.log = append(r.log, exchange{req: req, reqBody: body, resp: resp, respBody: respBody, invalid: r.invalid})
	r.mu.Unlock()
	return resp, nil
}

// oaRun drives requests through the gateway with a recording client.
type oaRun struct {
	*e2e
	rec *recorder
	tok string
}

// call sends a raw JSON body (none when empty) and checks the status.
func (o *oaRun) call(t *testing.T, method, path, body string, status int, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, o.info.GatewayURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if o.tok != "" {
		req.Header.Set("Authorization", "Bearer "+o.tok)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, out, status)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: out}
}

// bad sends a request that breaks the document on purpose.
func (o *oaRun) bad(t *testing.T, method, path, body string, status int, header ...string) response {
	t.Helper()
	o.rec.invalid = true
	defer func() { o.rec.invalid = false }()
	return o.call(t, method, path, body, status, header...)
}

// anon sends without a token.
func (o *oaRun) anon(t *testing.T, method, path string, status int) response {
	t.Helper()
	tok := o.tok
	o.tok = ""
	defer func() { o.tok = tok }()
	return o.call(t, method, path, "", status)
}

// field reads data.<name> of a JSON answer as a string.
func field(t *testing.T, r response, name string) string {
	t.Helper()
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	s, _ := env.Data[name].(string)
	if s == "" {
		t.Fatalf("data.%s missing in %s", name, r.body)
	}
	return s
}

// TestServedOpenAPIMatchesLiveAnswers drives the API through the gateway,
// covering the documented operations with their successes and typical
// errors, and validates every request and answer against the document the
// gateway serves (kin-openapi; JSON Schema 2020-12 for OpenAPI 3.1): an
// answer the document does not describe, or an undocumented status, fails.
func TestServedOpenAPIMatchesLiveAnswers(t *testing.T) {
	stack, e := startWithClient(t)
	ctx := context.Background()
	on, limit := true, noRateLimit
	if _, err := e.admin.UpdateTenant(ctx, stack.info.DemoTenantID, client.TenantInput{
		Flags: &client.FlagsInput{AIGateway: &on, OptIn: &on}, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("updating the demo tenant: %v", err)
	}
	rec := &recorder{next: e.hc.Transport}
	recorded := *e
	recorded.hc = &http.Client{Transport: rec, Timeout: e.hc.Timeout}
	o := &oaRun{e2e: &recorded, rec: rec, tok: e.mintAll(t, stack.info.DemoTenantID, "openapi check")}

	started := time.Now()
	o.platform(t)
	contactID, phoneID := o.contacts(t)
	o.fieldDefinitions(t, "contact-field-definitions")
	o.fieldDefinitions(t, "transaction-field-definitions")
	o.receivables(t, contactID)
	o.payables(t, contactID)
	o.campaigns(t, contactID)
	o.suppression(t, phoneID)
	o.optIns(t)
	o.webhooks(t)
	o.paymentRail(t)
	o.batches(t)
	o.aiGateway(t, contactID)
	o.edgeErrors(t)
	o.unknownIDs(t)

	driven := time.Since(started)
	doc, strict := o.servedDocument(t)
	covered := validateExchanges(t, doc, strict, rec.log)
	var all, missing []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			all = append(all, op.OperationID)
			if !covered[op.OperationID] {
				missing = append(missing, method+" "+path)
			}
		}
	}
	sort.Strings(missing)
	t.Logf("OpenAPI check: %d exchanges validated, %d of %d documented operations covered (requests %s, validation %s); not covered: %v",
		len(rec.log), len(all)-len(missing), len(all), driven.Round(time.Millisecond), (time.Since(started) - driven).Round(time.Millisecond), missing)
	if len(missing) > 0 {
		t.Errorf("operations not exercised: %v", missing)
	}
}

// servedDocument fetches /api/v1/openapi.json and loads it twice with its
// server set to the stack's gateway, so the router matches the recorded
// URLs: as served, and with every response object that lists its
// properties closed to others (strict), so a field an answer carries but
// the document does not declare is drift too.
func (o *oaRun) servedDocument(t *testing.T) (doc, strict *openapi3.T) {
	t.Helper()
	r := o.e2e.get(t, "/api/v1/openapi.json", o.tok)
	load := func() *openapi3.T {
		d, err := openapi3.NewLoader().LoadFromData(r.body)
		if err != nil {
			t.Fatalf("loading the served document: %v", err)
		}
		d.Servers = openapi3.Servers{{URL: o.info.GatewayURL + "/api/v1"}}
		return d
	}
	doc = load()
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("served document is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the served document is not valid: %v", err)
	}
	strict = load()
	closeResponses(strict)
	return doc, strict
}

// closeResponses sets unevaluatedProperties: false (JSON Schema 2020-12,
// which sees through allOf) on every object schema of a response that
// lists properties or composes with allOf and says nothing of other
// properties, except the branches of allOf, anyOf and oneOf, whose
// siblings' properties they cannot see.
func closeResponses(doc *openapi3.T) {
	var roots []*openapi3.SchemaRef
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for _, mt := range resp.Value.Content {
					roots = append(roots, mt.Schema)
				}
			}
		}
	}
	closeSchemas(roots)
}

// closeSchemas closes every object schema reachable from roots as
// closeResponses describes.
func closeSchemas(roots []*openapi3.SchemaRef) {
	branch, seen := map[*openapi3.Schema]bool{}, map[*openapi3.Schema]bool{}
	var all []*openapi3.Schema
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		all = append(all, s)
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, b := range group {
				if b != nil && b.Value != nil {
					branch[b.Value] = true
				}
				walk(b)
			}
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
	}
	for _, r := range roots {
		walk(r)
	}
	closed := false
	for _, s := range all {
		if branch[s] || (len(s.Properties) == 0 && len(s.AllOf) == 0) ||
			s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil ||
			s.UnevaluatedProperties.Has != nil || s.UnevaluatedProperties.Schema != nil {
			continue
		}
		s.UnevaluatedProperties = openapi3.BoolSchema{Has: &closed}
	}
}

// validateExchanges checks each exchange against doc (requests) and strict
// (answers) and returns the operation ids seen.
func validateExchanges(t *testing.T, doc, strict *openapi3.T, log []exchange) map[string]bool {
	t.Helper()
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("routing the document: %v", err)
	}
	strictRouter, err := legacy.NewRouter(strict)
	if err != nil {
		t.Fatalf("routing the strict document: %v", err)
	}
	covered := map[string]bool{}
	ctx := context.Background()
	for _, x := range log {
		name := x.req.Method + " " + x.req.URL.RequestURI()
		route, params, err := router.FindRoute(x.req)
		if err != nil {
			t.Errorf("%s: not a documented operation: %v", name, err)
			continue
		}
		covered[route.Operation.OperationID] = true
		if !x.invalid {
			x.req.Body = io.NopCloser(bytes.NewReader(x.reqBody))
			in := &openapi3filter.RequestValidationInput{
				Request: x.req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
			}
			if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
				t.Errorf("%s: request does not match the document: %v", name, err)
			}
		}
		sroute, sparams, err := strictRouter.FindRoute(x.req)
		if err != nil {
			t.Fatalf("%s: routed in the document but not in its strict copy: %v", name, err)
		}
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: x.req, PathParams: sparams, Route: sroute},
			Status:                 x.resp.StatusCode, Header: x.resp.Header,
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		out.SetBodyBytes(x.respBody)
		if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
			t.Errorf("%s → %d: answer does not match the document: %v\nbody: %.600s", name, x.resp.StatusCode, err, x.respBody)
		}
	}
	return covered
}

func (o *oaRun) platform(t *testing.T) {
	o.anon(t, http.MethodGet, "/api/v1/healthcheck/app", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/openapi.json", "", http.StatusOK)
	o.anon(t, http.MethodGet, "/api/v1/openapi.json", http.StatusUnauthorized)
	// A request id longer than 64 characters is replaced, not refused.
	r := o.call(t, http.MethodGet, "/api/v1/healthcheck/app", "", http.StatusOK, "X-Request-Id", strings.Repeat("a", 100))
	if id := r.header.Get("X-Request-Id"); id == "" || len(id) > 64 {
		t.Errorf("X-Request-Id %q: want a new id", id)
	}
}

func (o *oaRun) contacts(t *testing.T) (contactID, phoneID string) {
	r := o.call(t, http.MethodPost, "/api/v1/contacts",
		`{"first_name":"Ada","last_name":"Lovelace","phone":"+14155550181","email":"ada@example.com","external_id":"oa-1"}`, http.StatusCreated,
		"Idempotency-Key", "oa-contact")
	contactID, phoneID = field(t, r, "id"), field(t, r, "phone_id")
	o.call(t, http.MethodPost, "/api/v1/contacts",
		`{"first_name":"Ada","last_name":"Lovelace","phone":"+14155550181","email":"ada@example.com","external_id":"oa-1"}`, http.StatusCreated,
		"Idempotency-Key", "oa-contact")
	o.call(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"Bob","phone":"+14155550182"}`, http.StatusConflict,
		"Idempotency-Key", "oa-contact")
	o.call(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"Dup","phone":"+14155550181"}`, http.StatusUnprocessableEntity)
	o.bad(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"NoPhone"}`, http.StatusUnprocessableEntity)
	o.bad(t, http.MethodPost, "/api/v1/contacts", `{"first_name":`, http.StatusBadRequest)
	o.call(t, http.MethodGet, "/api/v1/contacts?per_page=5&page=1", "", http.StatusOK)
	o.bad(t, http.MethodGet, "/api/v1/contacts?per_page=0", "", http.StatusUnprocessableEntity)
	o.anon(t, http.MethodGet, "/api/v1/contacts", http.StatusUnauthorized)
	o.call(t, http.MethodGet, "/api/v1/contacts/"+contactID, "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "", http.StatusNotFound)
	o.call(t, http.MethodPut, "/api/v1/contacts/"+contactID,
		`{"first_name":"Ada","last_name":"King","phone":"+14155550181","external_id":"oa-1"}`, http.StatusOK)
	o.call(t, http.MethodPatch, "/api/v1/contacts/"+contactID, `{"email":"ada.king@example.com"}`, http.StatusOK)
	other := field(t, o.call(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"Gone","phone":"+14155550183"}`, http.StatusCreated), "id")
	o.call(t, http.MethodDelete, "/api/v1/contacts/"+other, "", http.StatusNoContent)
	o.call(t, http.MethodGet, "/api/v1/contacts?with_trashed=1", "", http.StatusOK)
	o.call(t, http.MethodPost, "/api/v1/contacts/"+other+"/restore", "", http.StatusOK)
	o.call(t, http.MethodPost, "/api/v1/contacts/"+other+"/restore", "{}", http.StatusUnprocessableEntity)
	return contactID, phoneID
}

func (o *oaRun) fieldDefinitions(t *testing.T, kind string) {
	base := "/api/v1/" + kind
	r := o.call(t, http.MethodPost, base, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"]}`, http.StatusCreated)
	id := field(t, r, "id")
	o.call(t, http.MethodPost, base, `{"key":"tier","label":"Tier again","type":"string"}`, http.StatusUnprocessableEntity)
	o.call(t, http.MethodGet, base, "", http.StatusOK)
	o.call(t, http.MethodGet, base+"/"+id, "", http.StatusOK)
	o.call(t, http.MethodPut, base+"/"+id, `{"key":"tier","label":"Level","type":"enum","options":["gold","silver","bronze"]}`, http.StatusOK)
	o.call(t, http.MethodPut, base+"/"+id, `{"key":"tier","label":"Level","type":"string"}`, http.StatusUnprocessableEntity)
	o.call(t, http.MethodDelete, base+"/"+id, "", http.StatusNoContent)
	o.call(t, http.MethodGet, base+"/"+id, "", http.StatusNotFound)
}

func (o *oaRun) receivables(t *testing.T, contactID string) {
	create := func() string {
		return field(t, o.call(t, http.MethodPost, "/api/v1/receivables",
			fmt.Sprintf(`{"contact_id":%q,"amount":4200,"currency":"USD","description":"Order 7","due_date":"2030-01-31"}`, contactID),
			http.StatusCreated), "id")
	}
	id := create()
	base := "/api/v1/receivables/" + id
	o.call(t, http.MethodGet, base, "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/receivables?status=pending&contact_id="+contactID, "", http.StatusOK)
	o.call(t, http.MethodPut, base, fmt.Sprintf(`{"contact_id":%q,"amount":4300,"description":"Order 7b"}`, contactID), http.StatusOK)
	o.call(t, http.MethodPost, base+"/resend-notification", "", http.StatusOK)
	o.call(t, http.MethodPost, base+"/verify-payer", "{}", http.StatusOK)
	o.call(t, http.MethodPost, base+"/revoke-link", "", http.StatusOK)
	o.call(t, http.MethodPost, base+"/retry-payment", "", http.StatusUnprocessableEntity)
	o.call(t, http.MethodPost, base+"/mark-paid", `{"reference":"wire 42"}`, http.StatusOK)
	o.call(t, http.MethodPost, base+"/cancel", "", http.StatusConflict)
	o.call(t, http.MethodDelete, base, "", http.StatusUnprocessableEntity)
	o.bad(t, http.MethodPost, "/api/v1/receivables", fmt.Sprintf(`{"contact_id":%q,"amount":10.5}`, contactID), http.StatusUnprocessableEntity)
	o.call(t, http.MethodGet, "/api/v1/receivables/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "", http.StatusNotFound)

	other := "/api/v1/receivables/" + create()
	o.call(t, http.MethodPost, other+"/expire", "", http.StatusOK)
	o.call(t, http.MethodPost, other+"/cancel", "", http.StatusUnprocessableEntity)
	o.call(t, http.MethodDelete, other, "", http.StatusNoContent)
	o.call(t, http.MethodGet, "/api/v1/receivables", "", http.StatusOK)
}

func (o *oaRun) payables(t *testing.T, contactID string) {
	create := func() string {
		return field(t, o.call(t, http.MethodPost, "/api/v1/payables",
			fmt.Sprintf(`{"contact_id":%q,"amount":2500,"description":"Refund 9"}`, contactID), http.StatusCreated), "id")
	}
	base := "/api/v1/payables/" + create()
	o.call(t, http.MethodGet, base, "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/payables?status=pending", "", http.StatusOK)
	o.call(t, http.MethodPut, base, fmt.Sprintf(`{"contact_id":%q,"amount":2600,"description":"Refund 9b"}`, contactID), http.StatusOK)
	o.call(t, http.MethodPost, base+"/resend-notification", "", http.StatusOK)
	o.call(t, http.MethodPost, base+"/verify-identity", "", http.StatusUnprocessableEntity)
	o.call(t, http.MethodPost, base+"/revoke-link", "", http.StatusOK)
	o.call(t, http.MethodPost, base+"/retry-disbursement", "", http.StatusUnprocessableEntity)
	o.call(t, http.MethodPost, base+"/mark-disbursed", `{"reference":"ach 7"}`, http.StatusOK)
	o.call(t, http.MethodPost, base+"/cancel", "", http.StatusUnprocessableEntity)

	other := "/api/v1/payables/" + create()
	o.call(t, http.MethodPost, other+"/expire", "", http.StatusOK)
	o.call(t, http.MethodDelete, other, "", http.StatusNoContent)
	third := "/api/v1/payables/" + create()
	o.call(t, http.MethodPost, third+"/cancel", "{}", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/payables/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "", http.StatusNotFound)
}

func (o *oaRun) campaigns(t *testing.T, contactID string) {
	r := o.call(t, http.MethodPost, "/api/v1/campaigns",
		`{"name":"Reminders","direction":"receivable","priority":5,"steps":[{"delay_hours":24,"message":"Hi {{first_name}}, {{amount}} is due: {{link}}"}],"rules":[{"field":"amount","op":"gte","value":100}]}`,
		http.StatusCreated)
	id := field(t, r, "id")
	base := "/api/v1/campaigns/" + id
	o.call(t, http.MethodGet, "/api/v1/campaigns", "", http.StatusOK)
	o.call(t, http.MethodGet, base, "", http.StatusOK)
	o.call(t, http.MethodPut, base, `{"name":"Reminders","direction":"receivable","priority":6}`, http.StatusOK)
	o.bad(t, http.MethodPost, "/api/v1/campaigns", `{"name":"x","direction":"sideways"}`, http.StatusUnprocessableEntity)
	tx := field(t, o.call(t, http.MethodPost, "/api/v1/receivables",
		fmt.Sprintf(`{"contact_id":%q,"amount":50}`, contactID), http.StatusCreated), "transaction_id")
	assign := "/api/v1/transactions/" + tx + "/campaign-assignment"
	o.call(t, http.MethodPost, assign, fmt.Sprintf(`{"campaign_id":%q}`, id), http.StatusUnprocessableEntity)
	o.call(t, http.MethodPost, base+"/publish", "", http.StatusOK)
	o.call(t, http.MethodPost, assign, fmt.Sprintf(`{"campaign_id":%q}`, id), http.StatusOK)
	o.call(t, http.MethodPost, assign, fmt.Sprintf(`{"campaign_id":%q}`, id), http.StatusConflict)
	o.call(t, http.MethodDelete, base, "", http.StatusNoContent)
	o.call(t, http.MethodGet, base, "", http.StatusNotFound)
}

func (o *oaRun) suppression(t *testing.T, phoneID string) {
	body := fmt.Sprintf(`{"contact_phone_id":%q,"reason":"manual","channel":"sms"}`, phoneID)
	o.call(t, http.MethodPost, "/api/v1/suppression-list", body, http.StatusCreated)
	o.call(t, http.MethodPost, "/api/v1/suppression-list", body, http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/suppression-list?channel=sms", "", http.StatusOK)
	o.bad(t, http.MethodGet, "/api/v1/suppression-list?channel=fax", "", http.StatusUnprocessableEntity)
	o.call(t, http.MethodDelete, "/api/v1/suppression-list/"+url.PathEscape("+14155550181")+"?channel=sms", "", http.StatusNoContent)
	o.call(t, http.MethodDelete, "/api/v1/suppression-list/"+url.PathEscape("+14155550181")+"?channel=sms", "", http.StatusNotFound)
}

func (o *oaRun) optIns(t *testing.T) {
	var code struct {
		Data struct{ ID string } `json:"data"`
	}
	if err := o.admin.Do(context.Background(), http.MethodPost, "/admin/v1/tenants/"+o.info.DemoTenantID+"/opt-in-codes",
		map[string]any{"name": "Counter sign", "is_live": true}, &code); err != nil {
		t.Fatalf("creating an opt-in code: %v", err)
	}
	o.call(t, http.MethodGet, "/api/v1/opt-in-codes", "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/opt-in-codes/"+code.Data.ID, "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/opt-in-codes/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "", http.StatusNotFound)
	o.call(t, http.MethodGet, "/api/v1/opt-ins?opt_in_code_id="+code.Data.ID, "", http.StatusOK)
}

func (o *oaRun) webhooks(t *testing.T) {
	body := `{"name":"Orders","url":"https://127.0.0.1:1/hook","subscribed_events":["opt_in.revoked"]}`
	r := o.call(t, http.MethodPost, "/api/v1/webhook-endpoints", body, http.StatusCreated, "Idempotency-Key", "oa-webhook")
	id := field(t, r, "id")
	base := "/api/v1/webhook-endpoints/" + id
	// A replay answers without the secret (contract section 3).
	o.call(t, http.MethodPost, "/api/v1/webhook-endpoints", body, http.StatusCreated, "Idempotency-Key", "oa-webhook")
	o.bad(t, http.MethodPost, "/api/v1/webhook-endpoints", `{"name":"x","url":"http://example.com","subscribed_events":["nope"]}`, http.StatusUnprocessableEntity)
	o.call(t, http.MethodGet, "/api/v1/webhook-endpoints", "", http.StatusOK)
	o.call(t, http.MethodGet, base, "", http.StatusOK)
	o.call(t, http.MethodPut, base, `{"name":"Orders v2","url":"https://127.0.0.1:1/hook2","subscribed_events":["opt_in.*"]}`, http.StatusOK)
	o.call(t, http.MethodPatch, base, `{"is_active":false}`, http.StatusOK)
	o.call(t, http.MethodPost, base+"/rotate-secret", "", http.StatusOK, "Idempotency-Key", "oa-rotate")
	o.call(t, http.MethodPost, base+"/rotate-secret", "", http.StatusOK, "Idempotency-Key", "oa-rotate")
	o.call(t, http.MethodGet, base+"/deliveries", "", http.StatusOK)
	o.call(t, http.MethodDelete, base, "", http.StatusNoContent)
	o.call(t, http.MethodGet, base, "", http.StatusNotFound)
	o.call(t, http.MethodGet, base+"/deliveries", "", http.StatusNotFound)
}

// paymentRail connects the stack's stripe-mock as the tenant's rail and
// goes back to the sandbox rail (the transactions of the sweep stay there).
func (o *oaRun) paymentRail(t *testing.T) {
	o.call(t, http.MethodGet, "/api/v1/payment-rail", "", http.StatusOK)
	o.bad(t, http.MethodPut, "/api/v1/payment-rail", `{"provider":"stripe","secret_key":"nope","webhook_secret":"whsec_x"}`, http.StatusUnprocessableEntity)
	o.call(t, http.MethodPut, "/api/v1/payment-rail", `{"provider":"stripe","secret_key":"sk_test_oa","webhook_secret":"whsec_oa","publishable_key":"pk_test_oa"}`,
		http.StatusOK, "Idempotency-Key", "oa-rail")
	o.call(t, http.MethodGet, "/api/v1/payment-rail", "", http.StatusOK)
	o.call(t, http.MethodDelete, "/api/v1/payment-rail", "", http.StatusNoContent)
}

func (o *oaRun) batches(t *testing.T) {
	// One at a time: the tenant may have two batches in flight.
	submit := func(path, body string) string {
		id := field(t, o.call(t, http.MethodPost, path, body, http.StatusAccepted), "id")
		o.e2e.waitForBatch(t, id)
		return id
	}
	id := submit("/api/v1/contacts/batch",
		`{"items":[{"external_id":"oa-b1","first_name":"Ann","phone":"+14155550184"},{"external_id":"oa-b2","first_name":"Bad","phone":"nope"}]}`)
	submit("/api/v1/receivables/batch", `{"items":[{"contact":{"external_id":"oa-b3","first_name":"Cy","phone":"+14155550185"},"amount":1200}]}`)
	submit("/api/v1/payables/batch", `{"items":[{"contact":{"external_id":"oa-b4","first_name":"Di","phone":"+14155550186"},"amount":900}]}`)
	o.bad(t, http.MethodPost, "/api/v1/contacts/batch", `{"items":[]}`, http.StatusUnprocessableEntity)
	o.call(t, http.MethodGet, "/api/v1/batches", "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/batches/"+id, "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/batches/"+id+"/errors", "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/batches/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "", http.StatusNotFound)
}

func (o *oaRun) aiGateway(t *testing.T, contactID string) {
	o.call(t, http.MethodPost, "/api/v1/gateway/resolve-contact", `{"name":"Ada King"}`, http.StatusOK)
	o.call(t, http.MethodPost, "/api/v1/gateway/contacts",
		`{"first_name":"Zed","last_name":"Quill","phone":"+14155550187"}`, http.StatusCreated, "Idempotency-Key", "oa-ai-contact")
	r := o.call(t, http.MethodPost, "/api/v1/gateway/transactions/prepare",
		fmt.Sprintf(`{"direction":"receivable","contact_id":%q,"amount":1500,"description":"Lunch"}`, contactID), http.StatusCreated)
	tx := field(t, r, "transaction_id")
	o.call(t, http.MethodGet, "/api/v1/gateway/transactions/"+tx+"/status", "", http.StatusOK)
	o.call(t, http.MethodPost, "/api/v1/gateway/transactions/"+tx+"/confirm", "{}", http.StatusOK)
	o.call(t, http.MethodPost, "/api/v1/gateway/transactions/"+tx+"/confirm", "{}", http.StatusUnprocessableEntity)
	o.call(t, http.MethodGet, "/api/v1/gateway/transactions/01JD3X0Q4Z8W2E5R7T9Y1V3K5N/status", "", http.StatusNotFound)
	o.bad(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", `{"direction":"sideways"}`, http.StatusUnprocessableEntity)

	// The MCP endpoint: a session opened, a tool called, the stream asked
	// for without a session, the session ended.
	mcpAccept := []string{"Accept", "application/json, text/event-stream"}
	r = o.call(t, http.MethodPost, "/api/v1/gateway/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"openapi-check","version":"1"}}}`, http.StatusOK, mcpAccept...)
	session := append([]string{"Mcp-Session-Id", r.header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version", "2025-06-18"}, mcpAccept...)
	o.call(t, http.MethodPost, "/api/v1/gateway/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted, session...)
	o.call(t, http.MethodPost, "/api/v1/gateway/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+
		`{"name":"transaction_status","arguments":{"reference":"`+tx+`"}}}`, http.StatusOK, session...)
	o.bad(t, http.MethodGet, "/api/v1/gateway/mcp", "", http.StatusUnprocessableEntity, "Accept", "text/event-stream")
	o.call(t, http.MethodDelete, "/api/v1/gateway/mcp", "", http.StatusNoContent, session...)
	o.call(t, http.MethodDelete, "/api/v1/gateway/mcp", "", http.StatusNotFound, session...)
}

// edgeErrors: a token without the ability (403), a body over 1 MB (413), a
// compressed body (415), and a tenant over its request limit (429).
func (o *oaRun) edgeErrors(t *testing.T) {
	tok := o.tok
	defer func() { o.tok = tok }()
	o.tok = o.e2e.mint(t, o.info.DemoTenantID, "contacts reader").Token
	o.call(t, http.MethodGet, "/api/v1/contacts", "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/webhook-endpoints", "", http.StatusForbidden)
	o.call(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"No","phone":"+14155550188"}`, http.StatusForbidden)
	o.tok = tok
	big := `{"first_name":"` + strings.Repeat("a", 1<<20) + `","phone":"+14155550189"}`
	o.bad(t, http.MethodPost, "/api/v1/contacts", big, http.StatusRequestEntityTooLarge)
	o.bad(t, http.MethodPost, "/api/v1/contacts", `{"first_name":"Zip","phone":"+14155550189"}`, http.StatusUnsupportedMediaType,
		"Content-Encoding", "gzip")

	one := 1
	name := "openapi rate limit"
	tenant, err := o.admin.CreateTenant(context.Background(), client.TenantInput{Name: &name, Limits: &client.LimitsInput{APIRequestsPerMinute: &one}})
	if err != nil {
		t.Fatalf("creating a tenant: %v", err)
	}
	o.tok = o.e2e.mint(t, tenant.ID, "limited").Token
	o.call(t, http.MethodGet, "/api/v1/contacts", "", http.StatusOK)
	o.call(t, http.MethodGet, "/api/v1/contacts", "", http.StatusTooManyRequests)
}

// unknownIDs calls every documented operation that takes a path parameter
// with an identifier that names nothing (an empty body on writes, which may
// not match the document): whatever the answer, it must be a documented
// 4xx, so the sweep grows with the document.
func (o *oaRun) unknownIDs(t *testing.T) {
	r := o.e2e.get(t, "/api/v1/openapi.json", o.tok)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	const unknown = "01JD3X0Q4Z8W2E5R7T9Y1V3K5N"
	n := 0
	for path, ops := range doc.Paths {
		if !strings.Contains(path, "{") {
			continue
		}
		concrete := path
		for strings.Contains(concrete, "{") {
			i, j := strings.Index(concrete, "{"), strings.Index(concrete, "}")
			value := unknown
			if concrete[i:j+1] == "{contactPhone}" {
				value = url.PathEscape("+14155550100")
			}
			concrete = concrete[:i] + value + concrete[j+1:]
		}
		for method := range ops {
			method = strings.ToUpper(method)
			body := ""
			if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
				body = "{}"
			}
			got := o.send4xx(t, method, "/api/v1"+concrete+"?channel=sms", body)
			if got.status < 400 || got.status >= 500 {
				t.Errorf("%s %s with an unknown id: %d %s, want a 4xx", method, path, got.status, got.body)
			}
			n++
		}
	}
	t.Logf("unknown-id sweep: %d operations", n)
}

// send4xx sends a request that may break the document, any status.
func (o *oaRun) send4xx(t *testing.T, method, path, body string) response {
	t.Helper()
	o.rec.invalid = true
	defer func() { o.rec.invalid = false }()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, o.info.GatewayURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+o.tok)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: out}
}
