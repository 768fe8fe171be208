package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
)

type definitionJSON struct {
	ID        string   `json:"id"`
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Type      string   `json:"type"`
	Options   []string `json:"options"`
	Required  bool     `json:"required"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

func (e *env) define(t *testing.T, body string) definitionJSON {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/v1/contact-field-definitions", body: body, token: e.token(t, tenantA, all()...)})
	if r.status != http.StatusCreated {
		t.Fatalf("defining %s: %d %s", body, r.status, r.body)
	}
	var d definitionJSON
	r.data(t, &d)
	return d
}

func TestDefinitionRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tier := e.define(t, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"],"required":false}`)
	fresh := func(t *testing.T) string {
		return e.define(t, `{"key":"k`+strings.ToLower(e.phone()[5:])+`","label":"L","type":"string"}`).ID
	}
	const path = "/api/v1/contact-field-definitions"
	tests := []routeCase{
		{name: "list", method: "GET", path: path, wantStatus: 200},
		{name: "list per_page=0", method: "GET", path: path + "?per_page=0", wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "per_page"},
		{name: "create", method: "POST", path: path, body: `{"key":"seats","label":"Seats","type":"integer"}`, wantStatus: 201},
		{name: "create missing key", method: "POST", path: path, body: `{"label":"Seats","type":"integer"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "key"},
		{name: "create bad key", method: "POST", path: path, body: `{"key":"Seats!","label":"Seats","type":"integer"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "key"},
		{name: "create duplicate key", method: "POST", path: path, body: `{"key":"tier","label":"Again","type":"string"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "key"},
		{name: "create unknown type", method: "POST", path: path, body: `{"key":"amount","label":"Amount","type":"money"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "type"},
		{name: "create enum without options", method: "POST", path: path, body: `{"key":"level","label":"Level","type":"enum"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "options"},
		{name: "create required not a boolean", method: "POST", path: path, body: `{"key":"level","label":"Level","type":"string","required":"yes"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "required"},
		{name: "create unknown field", method: "POST", path: path, body: `{"key":"level","label":"Level","type":"string","kind":"contact"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "kind"},
		{name: "show", method: "GET", path: path + "/" + tier.ID, wantStatus: 200},
		{name: "show id not a ulid", method: "GET", path: path + "/tier", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "show unknown", method: "GET", path: path + "/01HZX3K5Q8V9W2Y4Z6A7B8C9DE", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "put", method: "PUT", path: path + "/{id}", setup: fresh, body: `{"label":"New label","required":true,"id":"ignored","created_at":"ignored"}`, wantStatus: 200},
		{name: "put changing the key", method: "PUT", path: path + "/" + tier.ID, body: `{"key":"level","label":"Tier","options":["gold"]}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "key"},
		{name: "put changing the type", method: "PUT", path: path + "/" + tier.ID, body: `{"type":"string","label":"Tier"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "type"},
		{name: "put without label", method: "PUT", path: path + "/" + tier.ID, body: `{"options":["gold"]}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "label"},
		{name: "put id not a ulid", method: "PUT", path: path + "/tier", body: `{"label":"Tier"}`, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "delete", method: "DELETE", path: path + "/{id}", setup: fresh, wantStatus: 204},
		{name: "delete unknown", method: "DELETE", path: path + "/01HZX3K5Q8V9W2Y4Z6A7B8C9DE", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "no patch", method: "PATCH", path: path + "/" + tier.ID, body: `{}`, wantStatus: 405, wantCode: apierr.CodeMethodNotAllowed},
	}
	runRouteCases(t, e, tests)
}

func TestDefinitionJSONAndReplace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.define(t, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"]}`)
	want := definitionJSON{ID: d.ID, Key: "tier", Label: "Tier", Type: "enum", Options: []string{"gold", "silver"},
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	if diff := cmp.Diff(want, d); diff != "" || !timestamp.MatchString(d.CreatedAt) {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	r := e.do(t, request{method: "PUT", path: "/api/v1/contact-field-definitions/" + d.ID, token: e.token(t, tenantA, all()...),
		body: `{"key":"tier","type":"enum","label":"Level","options":["gold"],"required":true}`})
	var got definitionJSON
	r.data(t, &got)
	want.Label, want.Options, want.Required, want.UpdatedAt = "Level", []string{"gold"}, true, got.UpdatedAt
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	note := e.define(t, `{"key":"note","label":"Note","type":"string"}`)
	r = e.do(t, request{method: "GET", path: "/api/v1/contact-field-definitions/" + note.ID, token: e.token(t, tenantA, all()...)})
	if !strings.Contains(string(r.body), `"options":null`) {
		t.Errorf("a string definition should show options null: %s", r.body)
	}
	// The replaced rules apply to contacts at once: silver is gone, tier is required.
	c := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: e.token(t, tenantA, all()...),
		body: `{"phone":"` + e.phone() + `","custom_fields":{"tier":"silver"}}`})
	checkResult(t, c, 422, apierr.CodeValidationFailed, "custom_fields.tier")
}
