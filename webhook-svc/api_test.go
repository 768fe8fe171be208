package webhooksvc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01JTENANTA000000000000000A"
	tenantB = "01JTENANTB000000000000000B"
	base    = "/api/v1/webhook-endpoints"
)

var allAbilities = []string{"api:view-any-webhook", "api:view-webhook", "api:create-webhook", "api:update-webhook", "api:delete-webhook"}

type endpointJSON struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	URL                 string   `json:"url"`
	SubscribedEvents    []string `json:"subscribed_events"`
	IsActive            bool     `json:"is_active"`
	SigningSecret       *string  `json:"signing_secret"`
	ConsecutiveFailures *int     `json:"consecutive_failures"`
	LastSucceededAt     *string  `json:"last_succeeded_at"`
	DisabledAt          *string  `json:"disabled_at"`
	CreatedAt           string   `json:"created_at"`
}

func endpointOf(t *testing.T, r testenv.Response) (endpointJSON, map[string]any) {
	t.Helper()
	var typed struct{ Data endpointJSON }
	var raw struct{ Data map[string]any }
	r.Decode(t, &typed)
	r.Decode(t, &raw)
	return typed.Data, raw.Data
}

var validBody = map[string]any{
	"name": "Orders", "url": "https://hooks.example.com/paylane", "subscribed_events": []string{"contact.*", "receivable.paid"},
}

func TestEndpointLifecycle(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{})
	tok := svc.Token(t, tenantA, allAbilities...)

	created := svc.Do(t, http.MethodPost, base, tok, validBody)
	if created.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	ep, raw := endpointOf(t, created)
	if ep.SigningSecret == nil || !strings.HasPrefix(*ep.SigningSecret, "whsec_") || !ep.IsActive ||
		ep.ConsecutiveFailures == nil || *ep.ConsecutiveFailures != 0 {
		t.Fatalf("created = %s, want whsec_ secret, active, health fields", created.Body)
	}
	for _, f := range []string{"last_succeeded_at", "last_failed_at", "disabled_at", "consecutive_failures"} {
		if _, ok := raw[f]; !ok {
			t.Errorf("create response lacks health field %s", f)
		}
	}
	path := base + "/" + ep.ID

	noSecret := func(name string, r testenv.Response) {
		t.Helper()
		if strings.Contains(string(r.Body), "signing_secret") || strings.Contains(string(r.Body), "whsec_") {
			t.Errorf("%s shows the signing secret: %s", name, r.Body)
		}
		if !strings.Contains(string(r.Body), "consecutive_failures") {
			t.Errorf("%s lacks the health fields: %s", name, r.Body)
		}
	}
	shown := svc.Do(t, http.MethodGet, path, tok, nil)
	if shown.Status != http.StatusOK {
		t.Fatalf("show: %d %s", shown.Status, shown.Body)
	}
	noSecret("show", shown)
	list := svc.Do(t, http.MethodGet, base, tok, nil)
	noSecret("list", list)
	var coll struct {
		Data []endpointJSON
		Meta struct {
			Total   int `json:"total"`
			PerPage int `json:"per_page"`
		}
	}
	list.Decode(t, &coll)
	if len(coll.Data) != 1 || coll.Data[0].ID != ep.ID || coll.Meta.Total != 1 || coll.Meta.PerPage != 15 {
		t.Errorf("list = %s, want the endpoint", list.Body)
	}

	patched := svc.Do(t, http.MethodPatch, path, tok, map[string]any{"name": "Renamed", "id": "ignored", "created_at": "x"})
	if patched.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", patched.Status, patched.Body)
	}
	noSecret("patch", patched)
	if got, _ := endpointOf(t, patched); got.Name != "Renamed" || got.URL != validBody["url"] || got.ID != ep.ID {
		t.Errorf("patched = %+v, want only the name changed", got)
	}
	put := svc.Do(t, http.MethodPut, path, tok, map[string]any{"name": "Put", "url": "https://other.example.com/h", "subscribed_events": []string{"*"}})
	if got, _ := endpointOf(t, put); put.Status != http.StatusOK || got.URL != "https://other.example.com/h" || !cmp.Equal(got.SubscribedEvents, []string{"*"}) {
		t.Errorf("put: %d %s", put.Status, put.Body)
	}
	if r := svc.Do(t, http.MethodPut, path, tok, map[string]any{"name": "Put"}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("put without url and events: %d, want 422", r.Status)
	}

	rotated := svc.Do(t, http.MethodPost, path+"/rotate-secret", tok, nil)
	rot, _ := endpointOf(t, rotated)
	if rotated.Status != http.StatusOK || rot.SigningSecret == nil || *rot.SigningSecret == *ep.SigningSecret {
		t.Fatalf("rotate: %d %s, want 200 with a new secret", rotated.Status, rotated.Body)
	}
	if r := svc.Do(t, http.MethodGet, path+"/deliveries", tok, nil); r.Status != http.StatusOK {
		t.Errorf("deliveries: %d %s", r.Status, r.Body)
	}

	if r := svc.Do(t, http.MethodDelete, path, tok, nil); r.Status != http.StatusNoContent || len(r.Body) != 0 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{path, path + "/deliveries"} {
		if r := svc.Do(t, http.MethodGet, p, tok, nil); r.Status != http.StatusNotFound || r.Code(t) != "resource_not_found" {
			t.Errorf("GET %s after delete: %d %s", p, r.Status, r.Body)
		}
	}
	if r := svc.Do(t, http.MethodDelete, path, tok, nil); r.Status != http.StatusNotFound {
		t.Errorf("second delete: %d, want 404", r.Status)
	}
}

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{})
	tok := svc.Token(t, tenantA, allAbilities...)
	with := func(k string, v any) map[string]any {
		b := map[string]any{}
		for key, val := range validBody {
			b[key] = val
		}
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	tests := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"http url", with("url", "http://hooks.example.com/x"), 422, "url"},
		{"port out of range", with("url", "https://hooks.example.com:99999/x"), 422, "url"},
		{"port 0", with("url", "https://hooks.example.com:0/x"), 422, "url"},
		{"decimal IPv4", with("url", "https://2130706433/x"), 422, "url"},
		{"long url", with("url", "https://e.com/"+strings.Repeat("a", 2040)), 422, "url"},
		{"missing name", with("name", nil), 422, "name"},
		{"long name", with("name", strings.Repeat("n", 121)), 422, "name"},
		{"no events", with("subscribed_events", []string{}), 422, "subscribed_events"},
		{"unknown event", with("subscribed_events", []string{"contact.exploded"}), 422, "subscribed_events"},
		{"caller-supplied secret", with("signing_secret", "whsec_abc"), 422, "signing_secret"},
		{"unknown field", with("secret", "x"), 422, "secret"},
		{"wrong type", with("is_active", "yes"), 422, "is_active"},
		{"not json", "{", 400, ""},
		{"not an object", "[]", 422, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := svc.Do(t, http.MethodPost, base, tok, tt.body)
			if r.Status != tt.status {
				t.Fatalf("status %d %s, want %d", r.Status, r.Body, tt.status)
			}
			if tt.field == "" {
				return
			}
			var e struct {
				Error struct {
					Code    string              `json:"code"`
					Details map[string][]string `json:"details"`
				} `json:"error"`
			}
			r.Decode(t, &e)
			if e.Error.Code != "validation_failed" || len(e.Error.Details[tt.field]) == 0 {
				t.Errorf("error = %s, want validation_failed naming %s", r.Body, tt.field)
			}
		})
	}
	if r := svc.Do(t, http.MethodGet, base, tok, nil); !strings.Contains(string(r.Body), `"total":0`) {
		t.Errorf("a refused create stored an endpoint: %s", r.Body)
	}
}

func TestAbilitiesAndTenantIsolation(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{})
	owner := svc.Token(t, tenantA, allAbilities...)
	created := svc.Do(t, http.MethodPost, base, owner, validBody)
	ep, _ := endpointOf(t, created)
	path := base + "/" + ep.ID
	routes := []struct {
		method, path, ability string
		body                  any
	}{
		{http.MethodGet, base, "api:view-any-webhook", nil},
		{http.MethodPost, base, "api:create-webhook", validBody},
		{http.MethodGet, path, "api:view-webhook", nil},
		{http.MethodPut, path, "api:update-webhook", validBody},
		{http.MethodPatch, path, "api:update-webhook", map[string]any{}},
		{http.MethodPost, path + "/rotate-secret", "api:update-webhook", nil},
		{http.MethodGet, path + "/deliveries", "api:view-webhook", nil},
		{http.MethodDelete, path, "api:delete-webhook", nil},
	}
	for _, rt := range routes {
		var others []string
		for _, a := range allAbilities {
			if a != rt.ability {
				others = append(others, a)
			}
		}
		if r := svc.Do(t, rt.method, rt.path, svc.Token(t, tenantA, others...), rt.body); r.Status != http.StatusForbidden || r.Code(t) != "forbidden" {
			t.Errorf("%s %s without %s: %d %s, want 403", rt.method, rt.path, rt.ability, r.Status, r.Body)
		}
		if r := svc.Do(t, rt.method, rt.path, "", rt.body); r.Status != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d, want 401", rt.method, rt.path, r.Status)
		}
	}
	other := svc.Token(t, tenantB, allAbilities...)
	if r := svc.Do(t, http.MethodGet, path, other, nil); r.Status != http.StatusNotFound {
		t.Errorf("another tenant reads the endpoint: %d, want 404", r.Status)
	}
	if r := svc.Do(t, http.MethodGet, base, other, nil); !strings.Contains(string(r.Body), `"total":0`) {
		t.Errorf("another tenant's list: %s", r.Body)
	}
	if r := svc.Do(t, http.MethodGet, base+"/not-a-ulid", owner, nil); r.Status != http.StatusNotFound {
		t.Errorf("malformed id: %d, want 404", r.Status)
	}
}

// A replayed create (same Idempotency-Key and body) answers the stored
// response without the secret, which is shown once.
func TestIdempotentCreateReplaysWithoutTheSecret(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{})
	tok := svc.Token(t, tenantA, allAbilities...)
	first := svc.Do(t, http.MethodPost, base, tok, validBody, "Idempotency-Key", "create-1")
	ep, _ := endpointOf(t, first)
	if first.Status != http.StatusCreated || ep.SigningSecret == nil {
		t.Fatalf("first create: %d %s", first.Status, first.Body)
	}
	replay := svc.Do(t, http.MethodPost, base, tok, validBody, "Idempotency-Key", "create-1")
	again, _ := endpointOf(t, replay)
	if replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "true" || again.ID != ep.ID {
		t.Fatalf("replay: %d %v %s", replay.Status, replay.Header, replay.Body)
	}
	if strings.Contains(string(replay.Body), "whsec_") || again.SigningSecret != nil {
		t.Errorf("replay shows the secret: %s", replay.Body)
	}
	if r := svc.Do(t, http.MethodPost, base, tok, map[string]any{"name": "x"}, "Idempotency-Key", "create-1"); r.Status != http.StatusConflict || r.Code(t) != "idempotency_conflict" {
		t.Errorf("other body, same key: %d %s", r.Status, r.Body)
	}
	if r := svc.Do(t, http.MethodGet, base, tok, nil); !strings.Contains(string(r.Body), `"total":1`) {
		t.Errorf("replay created a second endpoint: %s", r.Body)
	}
	bad := svc.Do(t, http.MethodPost, base, tok, map[string]any{"name": "x"}, "Idempotency-Key", "create-2")
	if bad.Status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d", bad.Status)
	}
	if r := svc.Do(t, http.MethodPost, base, tok, map[string]any{"name": "x"}, "Idempotency-Key", "create-2"); r.Status != http.StatusUnprocessableEntity || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replayed 422: %d %v", r.Status, r.Header)
	}
	patch := map[string]any{"name": "Once"}
	p1 := svc.Do(t, http.MethodPatch, base+"/"+ep.ID, tok, patch, "Idempotency-Key", "patch-1")
	p2 := svc.Do(t, http.MethodPatch, base+"/"+ep.ID, tok, patch, "Idempotency-Key", "patch-1")
	if p1.Status != http.StatusOK || p2.Header.Get("Idempotent-Replayed") != "true" || string(p1.Body) != string(p2.Body) {
		t.Errorf("patch replay: %d %s / %v %s", p1.Status, p1.Body, p2.Header, p2.Body)
	}
	rot := svc.Do(t, http.MethodPost, base+"/"+ep.ID+"/rotate-secret", tok, nil, "Idempotency-Key", "rotate-1")
	rotReplay := svc.Do(t, http.MethodPost, base+"/"+ep.ID+"/rotate-secret", tok, nil, "Idempotency-Key", "rotate-1")
	if !strings.Contains(string(rot.Body), "whsec_") || strings.Contains(string(rotReplay.Body), "whsec_") || rotReplay.Status != http.StatusOK {
		t.Errorf("rotate %s, replay %d %s: want the secret only the first time", rot.Body, rotReplay.Status, rotReplay.Body)
	}
}
