package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ids"
)

func TestDisableUserAsAnOwner(t *testing.T) {
	t.Parallel()
	e, acme, path, owner, dev := newAcmeUsers(t, "owner@example.com", "owner", "dev@example.com", "developer")
	body := func(actor string) string { return `{"actor_id":"` + actor + `"}` }
	tests := []struct {
		name, target, body string
		status             int
		code, field        string
	}{
		{"not an owner", owner.ID, body(dev.ID), 403, "forbidden", ""},
		{"oneself", owner.ID, body(owner.ID), 422, "validation_failed", "user"},
		{"unknown actor", dev.ID, body(ids.New()), 404, "resource_not_found", ""},
		{"unknown user", ids.New(), body(owner.ID), 404, "resource_not_found", ""},
		{"malformed user", "x%00y", body(owner.ID), 404, "resource_not_found", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.service(t, http.MethodPost, path+tc.target+"/disable", tc.body)
			expect(t, r, tc.status, tc.code)
			if tc.field != "" && r.errorDetails(t)[tc.field] == nil {
				t.Errorf("details %v do not name %s", r.errorDetails(t), tc.field)
			}
		})
	}
	r := e.service(t, http.MethodPost, path+dev.ID+"/disable", body(owner.ID))
	expect(t, r, http.StatusOK, "")
	var got client.User
	r.data(t, &got)
	if got.DisabledAt == nil {
		t.Fatal("disable left disabled_at empty")
	}
	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"dev@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusUnauthorized, "unauthenticated")
	r = e.service(t, http.MethodPost, path+dev.ID+"/internal-token", "")
	expect(t, r, http.StatusNotFound, "resource_not_found")

	// A user who manages users cannot disable the last live owner; with a
	// second owner, one of them may go. An operator may disable the last.
	r = e.service(t, http.MethodPost, roles(acme), `{"actor_id":"`+owner.ID+`","name":"admin","abilities":["dashboard:manage-users"]}`)
	expect(t, r, http.StatusCreated, "")
	admin := e.activate(t, acme, "admin@example.com", "admin")
	r = e.service(t, http.MethodPost, path+owner.ID+"/disable", body(admin.ID))
	expect(t, r, http.StatusUnprocessableEntity, "validation_failed")
	if r.errorDetails(t)["user"] == nil {
		t.Errorf("the last owner's refusal names %v", r.errorDetails(t))
	}
	second := e.activate(t, acme, "second@example.com", "owner")
	r = e.service(t, http.MethodPost, path+owner.ID+"/disable", body(admin.ID))
	expect(t, r, http.StatusOK, "")
	r = e.call(t, http.MethodPost, "/admin/v1/tenants/"+acme+"/users/"+second.ID+"/disable", "")
	expect(t, r, http.StatusOK, "")
}

func roles(tenant string) string { return "/internal/v1/tenants/" + tenant + "/roles" }

func TestCustomRoles(t *testing.T) {
	t.Parallel()
	e, acme, path, owner, dev := newAcmeUsers(t, "owner@example.com", "owner", "dev@example.com", "developer")
	roles := "/internal/v1/tenants/" + acme + "/roles"
	tests := []struct {
		name, body  string
		status      int
		code, field string
	}{
		{"not an owner", `{"actor_id":"` + dev.ID + `","name":"auditor","abilities":["api:view-any-contact"]}`, 403, "forbidden", ""},
		{"no abilities", `{"actor_id":"` + owner.ID + `","name":"auditor","abilities":[]}`, 422, "validation_failed", "abilities"},
		{"unknown ability", `{"actor_id":"` + owner.ID + `","name":"auditor","abilities":["api:fly"]}`, 422, "validation_failed", "abilities"},
		{"bad name", `{"actor_id":"` + owner.ID + `","name":"Auditors!","abilities":["api:view-any-contact"]}`, 422, "validation_failed", "name"},
		{"default name", `{"actor_id":"` + owner.ID + `","name":"owner","abilities":["api:view-any-contact"]}`, 422, "validation_failed", "name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.service(t, http.MethodPost, roles, tc.body)
			expect(t, r, tc.status, tc.code)
			if tc.field != "" && r.errorDetails(t)[tc.field] == nil {
				t.Errorf("details %v do not name %s", r.errorDetails(t), tc.field)
			}
		})
	}
	r := e.service(t, http.MethodPost, roles, `{"actor_id":"`+owner.ID+`","name":"auditor","abilities":["api:view-any-contact","api:view-any-contact","api:view-any-webhook"]}`)
	expect(t, r, http.StatusCreated, "")
	var role client.Role
	r.data(t, &role)
	if role.Name != "auditor" || !slices.Equal(role.Abilities, []string{"api:view-any-contact", "api:view-any-webhook"}) {
		t.Errorf("created role %+v", role)
	}
	r = e.service(t, http.MethodPost, roles, `{"actor_id":"`+owner.ID+`","name":"auditor","abilities":["api:view-any-contact"]}`)
	expect(t, r, http.StatusUnprocessableEntity, "validation_failed")

	// A user of the role holds its abilities; an edit applies at once.
	aud := e.activate(t, acme, "aud@example.com", "auditor")
	r = e.service(t, http.MethodPut, roles+"/auditor", `{"actor_id":"`+owner.ID+`","abilities":["api:view-any-receivable"]}`)
	expect(t, r, http.StatusOK, "")
	r = e.service(t, http.MethodGet, path+aud.ID, "")
	var got client.User
	r.data(t, &got)
	if !slices.Equal(got.Abilities, []string{"api:view-any-receivable"}) {
		t.Errorf("the auditor's abilities after the edit: %v", got.Abilities)
	}
	updates := []struct {
		name, role, body string
		status           int
		code             string
	}{
		{"default role", "developer", `{"actor_id":"` + owner.ID + `","abilities":["api:view-any-contact"]}`, 422, "validation_failed"},
		{"unknown role", "nobody", `{"actor_id":"` + owner.ID + `","abilities":["api:view-any-contact"]}`, 404, "resource_not_found"},
		{"malformed role", "x%00", `{"actor_id":"` + owner.ID + `","abilities":["api:view-any-contact"]}`, 404, "resource_not_found"},
		{"not an owner", "auditor", `{"actor_id":"` + dev.ID + `","abilities":["api:view-any-contact"]}`, 403, "forbidden"},
		{"no abilities", "auditor", `{"actor_id":"` + owner.ID + `","abilities":[]}`, 422, "validation_failed"},
	}
	for _, tc := range updates {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, e.service(t, http.MethodPut, roles+"/"+tc.role, tc.body), tc.status, tc.code)
		})
	}
	r = e.service(t, http.MethodGet, roles, "")
	var list []client.Role
	r.data(t, &list)
	if len(list) != 5 {
		t.Errorf("roles %+v, want the four defaults and auditor", list)
	}
	for _, r := range list {
		if r.Default != (r.Name != "auditor") {
			t.Errorf("role %s: default %v", r.Name, r.Default)
		}
	}
}
