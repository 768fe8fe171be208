package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/idempotency"
)

// total returns the number of contacts of tenant A (with trashed).
func (e *env) total(t *testing.T) int {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/v1/contacts?with_trashed=1", token: e.token(t, tenantA, all()...)})
	var page struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Meta.Total
}

func keyed(key string) map[string]string { return map[string]string{idempotency.HeaderKey: key} }

func TestIdempotentCreateReplaysAndConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	body := `{"phone":"` + e.phone() + `","first_name":"Ada"}`
	first := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("create-1")})
	replay := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("create-1")})
	if first.status != 201 || replay.status != 201 || string(first.body) != string(replay.body) {
		t.Fatalf("first %d %s, replay %d %s", first.status, first.body, replay.status, replay.body)
	}
	if replay.header.Get("Idempotent-Replayed") != "true" || replay.header.Get("Original-Request-Id") != first.header.Get("X-Request-Id") {
		t.Errorf("replay headers = %v", replay.header)
	}
	other := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"phone":"` + e.phone() + `"}`, header: keyed("create-1")})
	checkResult(t, other, http.StatusConflict, apierr.CodeIdempotencyConflict, "")
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1", n)
	}
}

func TestIdempotentValidationErrorIsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	first := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"first_name":"Ada"}`, header: keyed("bad")})
	checkResult(t, first, 422, apierr.CodeValidationFailed, "phone")
	replay := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"first_name":"Ada"}`, header: keyed("bad")})
	if replay.status != 422 || string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %s %v", replay.status, replay.body, replay.header)
	}
}

func TestIdempotentWritesOnEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	c := e.newContact(t)
	trashed := e.newContact(t)
	e.trash(t, trashed.ID)
	routes := []struct{ method, path, body string }{
		{"PUT", "/api/v1/contacts/" + c.ID, `{"phone":"` + c.Phone + `","last_name":"King"}`},
		{"PATCH", "/api/v1/contacts/" + c.ID, `{"first_name":"Augusta"}`},
		{"POST", "/api/v1/contacts/" + trashed.ID + "/restore", `{}`},
		{"POST", "/api/v1/contact-field-definitions", `{"key":"tier","label":"Tier","type":"string"}`},
	}
	for _, rt := range routes {
		key := rt.method + rt.path
		first := e.do(t, request{method: rt.method, path: rt.path, body: rt.body, token: tok, header: keyed(key)})
		replay := e.do(t, request{method: rt.method, path: rt.path, body: rt.body, token: tok, header: keyed(key)})
		if first.status >= 300 || replay.status != first.status || string(replay.body) != string(first.body) ||
			replay.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s %s: first %d %s, replay %d %s", rt.method, rt.path, first.status, first.body, replay.status, replay.body)
		}
	}
}

func TestIdempotencyKeyTooLong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: e.token(t, tenantA, all()...),
		body: `{"phone":"` + e.phone() + `"}`, header: keyed(strings.Repeat("k", 129))})
	checkResult(t, r, 422, apierr.CodeValidationFailed, "Idempotency-Key")
	if n := e.total(t); n != 0 {
		t.Errorf("contacts = %d, want 0", n)
	}
}

func TestConcurrentSameKeyCreatesOneContact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	body := `{"phone":"` + e.phone() + `"}`
	const n = 20
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("race")})
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.status != 201 || string(r.body) != string(results[0].body) {
			t.Errorf("request %d = %d %s", i, r.status, r.body)
		}
	}
	if got := e.total(t); got != 1 {
		t.Errorf("contacts = %d, want exactly 1", got)
	}
}
