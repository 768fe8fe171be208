package devstack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/deploy/internal/apifuzz"
	"github.com/paylane/paylane/libs/authz"
)

// TestOpenAPISweeps drives every operation of the served OpenAPI document
// on one devstack: tenant B, with every ability, against tenant A's
// resources (one of each kind, seeded first), and tenant A with a token
// lacking each operation's own ability (x-paylane-ability).
func TestOpenAPISweeps(t *testing.T) {
	stack, e := startWithClient(t)
	ops := servedOperations(t, e)
	sw := newSweeper(t, stack, e)

	t.Run("every operation has a recipe", func(t *testing.T) { sw.recipes(t, ops) })
	if t.Failed() {
		return
	}
	t.Run("tenant isolation", func(t *testing.T) { sw.isolation(t, ops) })
	t.Run("abilities", func(t *testing.T) { sw.abilities(t, ops) })
}

// servedOperations reads /api/v1/openapi.json from the gateway.
func servedOperations(t *testing.T, e *e2e) []apifuzz.Operation {
	t.Helper()
	r := e.get(t, "/api/v1/openapi.json", e.info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	ops, err := apifuzz.Parse(r.body)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 70 {
		t.Fatalf("the served document lists %d operations", len(ops))
	}
	return ops
}

// sweeper holds the two tenants and their fixtures.
type sweeper struct {
	e    *e2e
	api  *apifuzz.Client
	a, b *apifuzz.Fixtures
}

func newSweeper(t *testing.T, stack *running, e *e2e) *sweeper {
	t.Helper()
	ctx := context.Background()
	api, err := apifuzz.NewClient(stack.info.GatewayURL, stack.info.CAFile, 30*time.Second, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	seeder := &apifuzz.Seeder{API: api, Admin: e.admin}
	sw := &sweeper{e: e, api: api}
	for _, ten := range []struct {
		name, prefix string
		phones       int
		dst          **apifuzz.Fixtures
	}{{"Sweep tenant A", "Zorblax", 7000, &sw.a}, {"Sweep tenant B", "Quibbly", 7100, &sw.b}} {
		id, tok, err := apifuzz.NewTenant(ctx, e.admin, ten.name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := seeder.Seed(ctx, id, tok, ten.prefix, ten.phones)
		if err != nil {
			t.Fatalf("seeding %s: %v", ten.name, err)
		}
		*ten.dst = f
	}
	return sw
}

// recipes: every path parameter, body reference and reference filter of
// every operation has a fixture; a new route with a new kind of resource
// fails here until the seed makes one.
func (sw *sweeper) recipes(t *testing.T, ops []apifuzz.Operation) {
	for _, op := range ops {
		for _, p := range op.PathParams() {
			if _, ok := sw.a.PathValue(op, p); !ok {
				t.Errorf("%s: no fixture for path parameter {%s}; seed one in deploy/internal/apifuzz", op, p)
			}
		}
		for _, q := range op.Query() {
			if apifuzz.IsReference(q.Name) {
				if _, ok := sw.a.QueryValue(op, q.Name); !ok {
					t.Errorf("%s: no fixture for the filter %s", op, q.Name)
				}
			}
		}
		for _, ref := range references(op.Body, "", 0) {
			if _, ok := sw.a.RefValue(ref); !ok {
				t.Errorf("%s: no fixture for the body reference %s", op, ref)
			}
		}
		if !op.Public && !op.Declared {
			t.Errorf("%s: no x-paylane-ability", op)
		}
	}
}

// references lists the reference fields (…_id) of a body schema.
func references(s apifuzz.Schema, prefix string, depth int) []string {
	if s == nil || depth > 6 {
		return nil
	}
	var out []string
	names, props, _ := apifuzz.Properties(s)
	for _, n := range names {
		p := n
		if prefix != "" {
			p = prefix + "." + n
		}
		if apifuzz.IsReference(n) {
			out = append(out, p)
		}
		out = append(out, references(props[n], p, depth+1)...)
		if items, ok := props[n]["items"].(map[string]any); ok {
			out = append(out, references(items, p+"[]", depth+1)...)
		}
	}
	return out
}

// crossFuzzer builds tenant B's requests aimed at tenant A: A's ids in
// path parameters, body references and filters, A's names, numbers and
// external ids in B's own free-text fields.
func (sw *sweeper) crossFuzzer(ops []apifuzz.Operation) *apifuzz.Fuzzer {
	a := sw.a
	text := map[string]string{
		"phone": a.ContactPhone, "first_name": a.FirstName, "last_name": a.LastName, "email": a.Email,
		"external_id": a.ContactExternalID, "name": a.FirstName + " " + a.LastName,
	}
	// Values a request of B's own needs to pass validation, so that the
	// answer turns on A's ids alone.
	own := map[string]any{
		"description": "sweep of tenant B", "url": "https://hooks.invalid/sweep-b", "subscribed_events": []any{"contact.*"},
		"label": "Sweep label", "key": "sweep_b_key", "type": "string", "reason": "manual", "message": "Sweep step",
	}
	return &apifuzz.Fuzzer{
		Ops: ops, Seed: 1, Token: sw.b.Token,
		PathValue: func(op apifuzz.Operation, p string) string { v, _ := a.PathValue(op, p); return v },
		Fill: func(op apifuzz.Operation) apifuzz.Filler {
			refs := a.Filler(op)
			return func(path string, s apifuzz.Schema) (any, bool) {
				if v, ok := refs(path, s); ok {
					return v, true
				}
				name := path[strings.LastIndexAny(path, ".]")+1:]
				if v, ok := text[name]; ok {
					return v, true
				}
				v, ok := own[name]
				return v, ok
			}
		},
		Query: func(op apifuzz.Operation, name string) (string, bool) { return a.QueryValue(op, name) },
	}
}

// isolation: tenant B calls every operation with A's ids. An operation
// whose path names A's resource, or whose body refers to one, answers 404
// or 422; any other may succeed on B's own data. No answer shows A's ids
// or data (data B itself sent excepted), and A's resources read the same
// afterwards.
func (sw *sweeper) isolation(t *testing.T, ops []apifuzz.Operation) {
	ctx := context.Background()
	before := sw.snapshot(t, ops)
	fz := sw.crossFuzzer(ops)
	for _, op := range ops {
		for _, req := range sw.crossRequests(fz, op) {
			a := sw.api.Do(ctx, req)
			if a.Err != nil {
				t.Errorf("%s %s: %v", req.Method, req.Path, a.Err)
				continue
			}
			strict := sw.namesA(req)
			if strict && a.Status == http.StatusUnprocessableEntity && !sw.pathNamesA(req) {
				// Only the body names A's resource: the 422 must be about
				// that reference, not about another field.
				if fields := sw.fieldsWithA(req.Body); !detailsName(a.Body, fields) {
					t.Errorf("%s %s: 422 does not name the reference to A's resource (%v): %s", req.Method, req.Path, fields, excerptBody(a.Body))
				}
			}
			switch {
			case strict && a.Status != http.StatusNotFound && a.Status != http.StatusUnprocessableEntity:
				t.Errorf("%s %s with A's ids: status %d, want 404 or 422; body %s", req.Method, req.Path, a.Status, excerptBody(a.Body))
			case !strict && a.Status >= 300 && a.Status != http.StatusNotFound && a.Status != http.StatusUnprocessableEntity:
				t.Errorf("%s %s: status %d, want 2xx, 404 or 422; body %s", req.Method, req.Path, a.Status, excerptBody(a.Body))
			}
			if leak := sw.leaks(req, a.Body); leak != "" {
				t.Errorf("%s %s (B's token): the answer shows A's %q: %s", req.Method, req.Path, leak, excerptBody(a.Body))
			}
		}
	}
	sw.awaitBatches(t)
	for _, path := range []string{"/api/v1/contacts?per_page=100", "/api/v1/receivables?per_page=100", "/api/v1/payables?per_page=100",
		"/api/v1/batches?per_page=100", "/api/v1/suppression-list?per_page=100", "/api/v1/opt-ins?per_page=100",
		"/api/v1/campaigns?per_page=100", "/api/v1/webhook-endpoints?per_page=100"} {
		req := apifuzz.Request{Method: "GET", Path: path, Header: map[string]string{"Authorization": "Bearer " + sw.b.Token}}
		a := sw.api.Do(ctx, req)
		if a.Status != http.StatusOK {
			t.Errorf("B's %s after the sweep: status %d", path, a.Status)
		}
		for _, id := range sw.a.IDs() {
			if strings.Contains(string(a.Body), id) {
				t.Errorf("B's %s after the sweep lists A's id %s: %s", path, id, excerptBody(a.Body))
			}
		}
	}
	after := sw.snapshot(t, ops)
	for path, b := range before {
		if diff := compareReads(b, after[path]); diff != "" {
			t.Errorf("A's %s changed during B's sweep: %s", path, diff)
		}
	}
}

// crossRequests are B's requests for op: the generated one and, for the
// transaction batches, one whose items name A's contact.
func (sw *sweeper) crossRequests(fz *apifuzz.Fuzzer, op apifuzz.Operation) []apifuzz.Request {
	req := fz.Valid(op)
	out := []apifuzz.Request{req}
	if op.ID == "submitReceivablesBatch" || op.ID == "submitPayablesBatch" {
		items := []any{
			map[string]any{"contact_id": sw.a.ContactID, "amount": 500, "description": "sweep"},
			map[string]any{"contact": map[string]any{"external_id": sw.a.ContactExternalID}, "amount": 500, "description": "sweep"},
		}
		b, _ := json.Marshal(map[string]any{"items": items})
		it := req
		it.Header = map[string]string{"Authorization": "Bearer " + sw.b.Token, "Content-Type": "application/json"}
		it.Body, it.HasBody = b, true
		out = append(out, it)
	}
	return out
}

// namesA reports whether the request names one of A's resources in its
// path or (a write) in its body; a list filter does not count.
func (sw *sweeper) namesA(req apifuzz.Request) bool {
	path, _, _ := strings.Cut(req.Path, "?")
	path, _ = url.PathUnescape(path)
	body := string(req.Body)
	for _, id := range append(sw.a.IDs(), sw.a.SuppressedPhone, sw.a.ContactExternalID) {
		if strings.Contains(path, id) {
			return true
		}
		if req.Method != "GET" && strings.Contains(body, id) {
			// The transaction batches' items are checked afterwards: the
			// batch is accepted and its items fail.
			if strings.Contains(path, "/batch") && !strings.Contains(body, `"campaign_id"`) {
				continue
			}
			if id == sw.a.ContactExternalID && !strings.Contains(body, `"contact":{"external_id"`) {
				continue // B's own contact may carry the same external id
			}
			return true
		}
	}
	return false
}

// pathNamesA reports whether the request's path names one of A's resources.
func (sw *sweeper) pathNamesA(req apifuzz.Request) bool {
	path, _, _ := strings.Cut(req.Path, "?")
	path, _ = url.PathUnescape(path)
	for _, id := range append(sw.a.IDs(), sw.a.SuppressedPhone) {
		if strings.Contains(path, id) {
			return true
		}
	}
	return false
}

// fieldsWithA lists the body fields (last names) whose value is one of A's
// ids or A's contact external id.
func (sw *sweeper) fieldsWithA(body []byte) []string {
	var v any
	_ = json.Unmarshal(body, &v)
	ids := append(sw.a.IDs(), sw.a.ContactExternalID)
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			if slices.Contains(ids, x) && key != "external_id" || key == "external_id" && x == sw.a.ContactExternalID {
				out = append(out, key)
			}
		}
	}
	walk("", v)
	sort.Strings(out)
	return out
}

// detailsName reports whether the error's details or message name one of
// fields.
func detailsName(body []byte, fields []string) bool {
	var env apifuzz.Envelope
	if json.Unmarshal(body, &env) != nil {
		return false
	}
	text := string(env.Error.Details)
	if env.Error.Message != nil {
		text += *env.Error.Message
	}
	for _, f := range fields {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}

// leaks returns one of A's ids or data values the answer shows (for a
// list, in its data), or "".
func (sw *sweeper) leaks(req apifuzz.Request, body []byte) string {
	text := string(body)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if req.Method == "GET" && json.Unmarshal(body, &env) == nil && len(env.Data) > 0 {
		text = string(env.Data) // links and meta repeat the filters B sent
	}
	sent, _ := url.PathUnescape(req.Path)
	sent += " " + req.Path + " " + string(req.Body)
	if q, err := url.ParseQuery(strings.SplitN(req.Path+"?", "?", 2)[1]); err == nil {
		for _, vs := range q {
			sent += " " + strings.Join(vs, " ")
		}
	}
	for _, id := range sw.a.IDs() {
		if strings.Contains(text, id) {
			return id
		}
	}
	for _, d := range sw.a.Data() {
		if strings.Contains(text, d) && !strings.Contains(sent, d) {
			return d
		}
	}
	return ""
}

// awaitBatches waits until every batch of B has finished.
func (sw *sweeper) awaitBatches(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a bound on the batch worker, not a latency check
	for {
		req := apifuzz.Request{Method: "GET", Path: "/api/v1/batches?per_page=100", Header: map[string]string{"Authorization": "Bearer " + sw.b.Token}}
		a := sw.api.Do(context.Background(), req)
		var page struct {
			Data []struct{ ID, Status string }
		}
		_ = json.Unmarshal(a.Body, &page)
		busy := 0
		for _, b := range page.Data {
			if b.Status == "pending" || b.Status == "processing" || b.Status == "queued" {
				busy++
			}
		}
		if a.Status == http.StatusOK && busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("B's batches not finished after 60 s: %s", excerptBody(a.Body))
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// snapshot reads each of A's resources (every GET with a path parameter)
// with A's token.
func (sw *sweeper) snapshot(t *testing.T, ops []apifuzz.Operation) map[string]apifuzz.Answer {
	t.Helper()
	out := map[string]apifuzz.Answer{}
	fz := &apifuzz.Fuzzer{Ops: ops, Token: sw.a.Token,
		PathValue: func(op apifuzz.Operation, p string) string { v, _ := sw.a.PathValue(op, p); return v }}
	for _, op := range ops {
		if op.Method != "GET" || len(op.PathParams()) == 0 {
			continue
		}
		req := fz.Valid(op)
		out[req.Path] = sw.api.Do(context.Background(), req)
	}
	return out
}

// compareReads compares two reads of one resource: the status, and every
// top-level field of data except timestamps and what the platform itself
// moves on (status, messages, deliveries).
func compareReads(before, after apifuzz.Answer) string {
	if before.Status != after.Status {
		return "status " + http.StatusText(before.Status) + " → " + http.StatusText(after.Status)
	}
	var b, a struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(before.Body, &b) != nil || json.Unmarshal(after.Body, &a) != nil {
		return ""
	}
	var bm, am map[string]json.RawMessage
	if json.Unmarshal(b.Data, &bm) != nil || json.Unmarshal(a.Data, &am) != nil {
		return "" // a list (deliveries, errors): not compared
	}
	var keys []string
	for k := range bm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	volatile := []string{"status", "latest_message", "messages", "attempt_count", "processed_items", "succeeded_items",
		"failed_items", "consecutive_failures", "opt_in_status", "consents"}
	for _, k := range keys {
		if strings.HasSuffix(k, "_at") || slices.Contains(volatile, k) {
			continue
		}
		if string(bm[k]) != string(am[k]) {
			return k + ": " + string(bm[k]) + " → " + string(am[k])
		}
	}
	return ""
}

// abilities: for each operation, tenant A's token with every ability but
// the operation's own (x-paylane-ability) is 403 forbidden on A's own
// resources, with a well-formed request.
func (sw *sweeper) abilities(t *testing.T, ops []apifuzz.Operation) {
	ctx := context.Background()
	tokens := map[string]string{}
	for _, op := range ops {
		if len(op.Abilities) == 0 {
			continue
		}
		key := strings.Join(op.Abilities, ",")
		tok, ok := tokens[key]
		if !ok {
			var without []string
			for _, a := range authz.All() {
				if !slices.Contains(op.Abilities, a) {
					without = append(without, a)
				}
			}
			var err error
			name := "without " + key
			if len(name) > 120 { // a token's name is at most 120 characters
				name = name[:117] + "..."
			}
			tok, err = apifuzz.Mint(ctx, sw.e.admin, sw.a.TenantID, name, without)
			if err != nil {
				t.Fatal(err)
			}
			tokens[key] = tok
		}
		fz := &apifuzz.Fuzzer{Ops: ops, Seed: 2, Token: tok,
			PathValue: func(op apifuzz.Operation, p string) string { v, _ := sw.a.PathValue(op, p); return v },
			Fill:      sw.a.Filler,
			Query:     func(op apifuzz.Operation, name string) (string, bool) { return sw.a.QueryValue(op, name) },
		}
		req := fz.Valid(op)
		a := sw.api.Do(ctx, req)
		var env apifuzz.Envelope
		_ = json.Unmarshal(a.Body, &env)
		if a.Status != http.StatusForbidden || env.Error.Code != "forbidden" {
			t.Errorf("%s without %s: status %d, want 403 forbidden; body %s", op, key, a.Status, excerptBody(a.Body))
		}
	}
}

func excerptBody(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
