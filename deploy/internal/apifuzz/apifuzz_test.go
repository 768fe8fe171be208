package apifuzz_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/paylane/paylane/deploy/internal/apifuzz"
	"github.com/paylane/paylane/gateway/openapi"
)

func operations(t testing.TB) []apifuzz.Operation {
	t.Helper()
	doc, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := apifuzz.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func fuzzer(t testing.TB, seed uint64) *apifuzz.Fuzzer {
	return &apifuzz.Fuzzer{Ops: apifuzz.FuzzTargets(operations(t)), Seed: seed, Token: "pl_1|secret",
		PathValue: func(apifuzz.Operation, string) string { return "01J00000000000000000000000" }}
}

func TestParse(t *testing.T) {
	t.Parallel()
	ops := operations(t)
	if len(ops) < 70 {
		t.Fatalf("%d operations", len(ops))
	}
	byID := map[string]apifuzz.Operation{}
	for _, op := range ops {
		if !op.Declared {
			t.Errorf("%s: x-paylane-ability not read", op)
		}
		byID[op.ID] = op
	}
	if !byID["healthcheck"].Public || byID["listContacts"].Public {
		t.Error("security: [] not read as public")
	}
	upd := byID["updateContact"]
	if upd.Method != "PATCH" || upd.Path != "/contacts/{contact}" || !reflect.DeepEqual(upd.PathParams(), []string{"contact"}) ||
		!reflect.DeepEqual(upd.Abilities, []string{"api:update-contact"}) || upd.Body == nil {
		t.Errorf("updateContact parsed as %+v", upd)
	}
	if got := byID["listBatches"].Abilities; len(got) != 3 {
		t.Errorf("listBatches abilities %v, want the three view-any abilities", got)
	}
	names, _, required := apifuzz.Properties(byID["createSuppression"].Body)
	if !reflect.DeepEqual(names, []string{"channel", "contact_phone_id", "reason"}) || !required["contact_phone_id"] {
		t.Errorf("createSuppression body: %v required %v; want its $ref resolved", names, required)
	}
	var queries []string
	for _, q := range byID["listReceivables"].Query() {
		queries = append(queries, q.Name)
	}
	if !strings.Contains(strings.Join(queries, ","), "contact_id") {
		t.Errorf("listReceivables query parameters %v", queries)
	}
}

func TestRequestsAreDeterministic(t *testing.T) {
	t.Parallel()
	a, b, c := fuzzer(t, 7), fuzzer(t, 7), fuzzer(t, 8)
	same := 0
	for i := range uint64(300) {
		ra, rb, rc := a.Request(i), b.Request(i), c.Request(i)
		if !reflect.DeepEqual(ra, rb) {
			t.Fatalf("request %d differs between two fuzzers of seed 7:\n%+v\n%+v", i, ra, rb)
		}
		if reflect.DeepEqual(ra, rc) {
			same++
		}
	}
	if same > 30 {
		t.Errorf("%d of 300 requests equal under seeds 7 and 8", same)
	}
}

func TestEveryKindIsGenerated(t *testing.T) {
	t.Parallel()
	f := fuzzer(t, 1)
	seen := map[string]bool{}
	for i := range uint64(6000) {
		k := f.Request(i).Kind
		if strings.HasPrefix(k, "raw:") {
			k = "raw"
		}
		seen[k] = true
	}
	for _, k := range []string{"valid", "wrong-type", "missing-required", "nul-in-string", "invalid-utf8", "huge-string",
		"deep-nesting", "huge-array", "duplicate-key", "case-variant-key", "number-out-of-range", "extra-field",
		"content-type", "empty-body", "non-json", "bad-path-id", "bad-query", "header", "method", "raw"} {
		if !seen[k] {
			t.Errorf("no %s request in 6000", k)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	env := []byte(`{"error":{"code":"validation_failed","message":"m","request_id":"R1"}}`)
	hdr := func(id string) http.Header { h := http.Header{}; h.Set("X-Request-Id", id); return h }
	post := apifuzz.Request{Method: "POST"}
	tests := []struct {
		name string
		req  apifuzz.Request
		a    apifuzz.Answer
		want string
	}{
		{"envelope", post, apifuzz.Answer{Status: 422, Header: hdr("R1"), Body: env}, apifuzz.OK},
		{"2xx", post, apifuzz.Answer{Status: 201, Body: []byte(`{}`)}, apifuzz.OK},
		{"500 in the envelope", post, apifuzz.Answer{Status: 500, Header: hdr("R1"), Body: env}, apifuzz.ServerError},
		{"503", post, apifuzz.Answer{Status: 503, Header: hdr("R1"), Body: env}, apifuzz.ServerError},
		{"plain text 400", post, apifuzz.Answer{Status: 400, Body: []byte("Invalid http method")}, apifuzz.NotEnvelope},
		{"no X-Request-Id", post, apifuzz.Answer{Status: 404, Header: http.Header{}, Body: env}, apifuzz.NotEnvelope},
		{"other request id", post, apifuzz.Answer{Status: 404, Header: hdr("R2"), Body: env}, apifuzz.NotEnvelope},
		{"no message", post, apifuzz.Answer{Status: 400, Header: hdr("R1"), Body: []byte(`{"error":{"code":"x","request_id":"R1"}}`)}, apifuzz.NotEnvelope},
		{"HEAD without body", apifuzz.Request{Method: "HEAD"}, apifuzz.Answer{Status: 405, Header: hdr("R1")}, apifuzz.OK},
		{"hung", post, apifuzz.Answer{Err: http.ErrHandlerTimeout, Hung: true}, apifuzz.Hung},
		{"closed without answer", post, apifuzz.Answer{Err: http.ErrServerClosed}, apifuzz.NotEnvelope},
	}
	for _, tt := range tests {
		if got, problem := apifuzz.Classify(tt.req, tt.a); got != tt.want {
			t.Errorf("%s: class %q (%s), want %q", tt.name, got, problem, tt.want)
		}
	}
}

// FuzzRequest: every generated request can be sent by Go's HTTP client (a
// method token, header names and values it accepts), so a failure is
// always the server's.
func FuzzRequest(f *testing.F) {
	f.Add(uint64(1), uint64(0))
	f.Add(uint64(2), uint64(12345))
	fz := fuzzer(f, 0)
	f.Fuzz(func(t *testing.T, seed, i uint64) {
		fz := *fz
		fz.Seed = seed
		r := fz.Request(i)
		if r.Raw != nil {
			return
		}
		// The client sends the path as written (URL.Opaque); the method and
		// the headers go through its checks.
		req, err := http.NewRequest(r.Method, "https://localhost/", nil)
		if err != nil {
			t.Fatalf("request %d (%s): %v", i, r.Kind, err)
		}
		if !strings.HasPrefix(r.Path, "/api/v1/") {
			t.Fatalf("request %d (%s): path %q", i, r.Kind, r.Path)
		}
		for k, v := range r.Header {
			req.Header.Set(k, v)
			for _, c := range []byte(v) {
				if c < 0x20 && c != '\t' || c == 0x7f {
					t.Fatalf("request %d (%s): header %s has control byte %#x", i, r.Kind, k, c)
				}
			}
		}
	})
}

// TestDuplicateKeysReachNestedObjects: duplicate and case-variant keys
// are also made inside the body's objects (custom_fields), not only at
// its root.
func TestDuplicateKeysReachNestedObjects(t *testing.T) {
	t.Parallel()
	var create []apifuzz.Operation
	for _, op := range operations(t) {
		if op.ID == "createContact" {
			create = append(create, op)
		}
	}
	f := &apifuzz.Fuzzer{Ops: create, Seed: 3, Token: "pl_1|secret",
		Fill: func(apifuzz.Operation) apifuzz.Filler {
			return func(path string, _ apifuzz.Schema) (any, bool) {
				if path == "custom_fields" {
					return map[string]any{"tier": "gold"}, true
				}
				return nil, false
			}
		}}
	nested := 0
	for i := range uint64(3000) {
		r := f.Request(i)
		if r.Kind != "duplicate-key" && r.Kind != "case-variant-key" {
			continue
		}
		b := string(r.Body)
		if strings.Count(b, `"tier"`) >= 2 || strings.Contains(b, `"TIER"`) || strings.Contains(b, `"Tier"`) || strings.Contains(b, `"rtie"`) {
			nested++
		}
	}
	if nested == 0 {
		t.Error("no duplicate or case-variant key inside custom_fields in 3000 requests")
	}
}
