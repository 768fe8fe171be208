package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/contacts-svc/internal/httpapi"
	"github.com/paylane/paylane/libs/apierr"
)

// route is a public route with a valid request for it.
type route struct {
	method, path, body, ability string
}

func publicRoutes(contactID, definitionID string) []route {
	return []route{
		{"GET", "/api/v1/contacts", "", httpapi.AbilityViewAnyContact},
		{"POST", "/api/v1/contacts", `{"phone":"+14155559001"}`, httpapi.AbilityCreateContact},
		{"GET", "/api/v1/contacts/" + contactID, "", httpapi.AbilityViewContact},
		{"PUT", "/api/v1/contacts/" + contactID, `{"phone":"+14155559002"}`, httpapi.AbilityUpdateContact},
		{"PATCH", "/api/v1/contacts/" + contactID, `{"first_name":"Ada"}`, httpapi.AbilityUpdateContact},
		{"DELETE", "/api/v1/contacts/" + contactID, "", httpapi.AbilityDeleteContact},
		{"POST", "/api/v1/contacts/" + contactID + "/restore", "", httpapi.AbilityRestoreContact},
		{"GET", "/api/v1/contact-field-definitions", "", httpapi.AbilityViewAnyDefinition},
		{"POST", "/api/v1/contact-field-definitions", `{"key":"note","label":"Note","type":"string"}`, httpapi.AbilityCreateDefinition},
		{"GET", "/api/v1/contact-field-definitions/" + definitionID, "", httpapi.AbilityViewDefinition},
		{"PUT", "/api/v1/contact-field-definitions/" + definitionID, `{"label":"Tier"}`, httpapi.AbilityUpdateDefinition},
		{"DELETE", "/api/v1/contact-field-definitions/" + definitionID, "", httpapi.AbilityDeleteDefinition},
	}
}

func TestEveryPublicRouteIsGated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.newContact(t)
	def := e.do(t, request{method: "POST", path: "/api/v1/contact-field-definitions", token: e.token(t, tenantA, all()...),
		body: `{"key":"tier","label":"Tier","type":"string"}`})
	var d struct {
		ID string `json:"id"`
	}
	def.data(t, &d)
	for _, rt := range publicRoutes(c.ID, d.ID) {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			t.Parallel()
			r := e.do(t, request{method: rt.method, path: rt.path, body: rt.body, token: e.token(t, tenantA, allBut(rt.ability)...)})
			checkResult(t, r, http.StatusForbidden, apierr.CodeForbidden, "")
			r = e.do(t, request{method: rt.method, path: rt.path, body: rt.body})
			checkResult(t, r, http.StatusUnauthorized, apierr.CodeUnauthenticated, "")
			r = e.do(t, request{method: rt.method, path: rt.path, body: rt.body, token: "not.a.jwt"})
			checkResult(t, r, http.StatusUnauthorized, apierr.CodeUnauthenticated, "")
		})
	}
}

func TestAnotherTenantsObjectsAreNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.newContact(t)
	trashed := e.newContact(t)
	e.trash(t, trashed.ID)
	def := e.do(t, request{method: "POST", path: "/api/v1/contact-field-definitions", token: e.token(t, tenantA, all()...),
		body: `{"key":"tier","label":"Tier","type":"string"}`})
	var d struct {
		ID string `json:"id"`
	}
	def.data(t, &d)
	routes := publicRoutes(c.ID, d.ID)
	routes = append(routes,
		route{"GET", "/api/v1/contacts/" + trashed.ID + "?with_trashed=1", "", ""},
		route{"POST", "/api/v1/contacts/" + trashed.ID + "/restore", "", ""},
		route{"GET", "/internal/v1/contacts/" + c.ID, "", ""},
	)
	for _, rt := range routes {
		if !strings.Contains(rt.path, c.ID) && !strings.Contains(rt.path, d.ID) && !strings.Contains(rt.path, trashed.ID) {
			continue // collection routes
		}
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			t.Parallel()
			r := e.do(t, request{method: rt.method, path: rt.path, body: rt.body, token: e.token(t, tenantB, all()...)})
			checkResult(t, r, http.StatusNotFound, apierr.CodeResourceNotFound, "")
		})
	}
	t.Cleanup(func() { // after the parallel subtests: A's contact is untouched
		r := e.do(t, request{method: "GET", path: "/api/v1/contacts/" + c.ID, token: e.token(t, tenantA, all()...)})
		var got contactJSON
		r.data(t, &got)
		if got.UpdatedAt != c.UpdatedAt || got.Phone != c.Phone {
			t.Errorf("tenant B changed A's contact: %s", r.body)
		}
	})
	// Tenant B's list is empty.
	r := e.do(t, request{method: "GET", path: "/api/v1/contacts?with_trashed=1", token: e.token(t, tenantB, all()...)})
	if r.status != 200 || !strings.Contains(string(r.body), `"total":0`) {
		t.Errorf("tenant B's list = %d %s", r.status, r.body)
	}
}
