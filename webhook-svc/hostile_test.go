package webhooksvc_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestHostileInput: a NUL in an endpoint's text, a key in other case, a
// repeated key and a filter holding %00 or bytes that are not UTF-8 are
// 422 naming the field; such an endpoint id is 404; never a 500.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{})
	tok := svc.Token(t, tenantA, allAbilities...)
	created := svc.Do(t, http.MethodPost, base, tok, validBody)
	ep, _ := endpointOf(t, created)
	problem := func(r testenv.Response, field string) {
		t.Helper()
		var env struct {
			Error struct {
				Details map[string][]string `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Body, &env)
		if _, ok := env.Error.Details[field]; r.Status != http.StatusUnprocessableEntity || !ok {
			t.Errorf("%d %s, want 422 naming %s", r.Status, r.Body, field)
		}
	}
	for _, tt := range []struct{ method, path, body, field string }{
		{"POST", base, `{"name":"A\u0000","url":"https://hooks.example.com/x","subscribed_events":["contact.*"]}`, "name"},
		{"POST", base, `{"name":"A","url":"https://hooks.example.com/x","subscribed_events":["contact.\u0000"]}`, "subscribed_events.0"},
		{"POST", base, `{"name":"A","URL":"https://hooks.example.com/x","subscribed_events":["contact.*"]}`, "URL"},
		{"POST", base, `{"name":"A","name":"B","url":"https://hooks.example.com/x","subscribed_events":["contact.*"]}`, "name"},
		{"PATCH", base + "/" + ep.ID, `{"name":"\u0000"}`, "name"},
	} {
		problem(svc.Do(t, tt.method, tt.path, tok, json.RawMessage(tt.body)), tt.field)
	}
	problem(svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries?status=%00", tok, nil), "status")
	problem(svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries?event_type=%FF", tok, nil), "event_type")
	for _, path := range []string{base + "/%00", base + "/%FF", base + "/%00/deliveries"} {
		if r := svc.Do(t, http.MethodGet, path, tok, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s = %d %s, want 404", path, r.Status, r.Body)
		}
	}
}
