package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestDisableUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, _ := e.identity.AddUser(tenant, "owner@example.com", "Owner", "owner", password)
	dev, _ := e.identity.AddUser(tenant, "dev@example.com", "Dev", "developer", password)
	b := e.signedIn(t, "owner@example.com")
	devBrowser := e.signedIn(t, "dev@example.com")
	devBrowser.open(t, "/dashboard/tokens")

	page := b.open(t, "/dashboard/users")
	if !strings.Contains(page.body, `action="/dashboard/users/`+dev.ID+`/disable"`) {
		t.Errorf("no Disable form for the developer:\n%s", page.body)
	}
	if strings.Contains(page.body, `action="/dashboard/users/`+owner.ID+`/disable"`) {
		t.Error("the owner is offered to disable themselves")
	}
	token := csrf(t, page)
	if a := b.do(t, http.MethodPost, "/dashboard/users/"+dev.ID+"/disable", url.Values{}); a.status != 419 {
		t.Errorf("disable without csrf = %d, want 419", a.status)
	}
	for _, id := range []string{"nope", "%00", "01JMEMBER00000000000000999"} {
		if a := b.do(t, http.MethodPost, "/dashboard/users/"+id+"/disable", url.Values{"_csrf": {token}}); a.status != http.StatusNotFound {
			t.Errorf("disable %q = %d, want 404", id, a.status)
		}
	}
	a := b.do(t, http.MethodPost, "/dashboard/users/"+owner.ID+"/disable", url.Values{"_csrf": {token}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "cannot disable yourself") {
		t.Errorf("disabling oneself: %d", a.status)
	}

	a = b.do(t, http.MethodPost, "/dashboard/users/"+dev.ID+"/disable", url.Values{"_csrf": {token}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/users?notice=disabled" {
		t.Fatalf("disable = %d to %q", a.status, a.header.Get("Location"))
	}
	// The developer's session ended at once (deleted, not only refused).
	devBrowser.wantGet(t, "/dashboard/tokens", http.StatusFound, "the disabled developer's session")
	if a := devBrowser.get(t, "/dashboard/sign-in"); a.status != http.StatusOK {
		t.Errorf("the disabled developer's sign-in page = %d", a.status)
	}
	list := b.open(t, "/dashboard/users?notice=disabled")
	if !strings.Contains(list.body, "their sessions have ended") || !strings.Contains(list.body, `<span class="badge">Disabled</span>`) {
		t.Errorf("users page after disabling:\n%s", list.body)
	}

	// A role that manages users but is no owner cannot disable the last
	// owner: identity-svc says so and the page shows it.
	a = b.do(t, http.MethodPost, "/dashboard/roles", url.Values{"_csrf": {token}, "name": {"admin"},
		"abilities": {"dashboard:manage-users", "api:view-any-contact"}})
	expectStatus(t, a, http.StatusSeeOther)
	e.identity.AddUser(tenant, "admin@example.com", "Admin", "admin", password)
	ad := e.signedIn(t, "admin@example.com")
	adPage := ad.open(t, "/dashboard/users")
	a = ad.do(t, http.MethodPost, "/dashboard/users/"+owner.ID+"/disable", url.Values{"_csrf": {csrf(t, adPage)}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "last active owner") {
		t.Errorf("disabling the last owner: %d", a.status)
	}

	// Without dashboard:manage-users: 403.
	e.identity.AddUser(tenant, "sup@example.com", "Sup", "support", password)
	s := e.signedIn(t, "sup@example.com")
	acct := s.open(t, "/dashboard/account")
	if a := s.do(t, http.MethodPost, "/dashboard/users/"+owner.ID+"/disable", url.Values{"_csrf": {csrf(t, acct)}}); a.status != http.StatusForbidden {
		t.Errorf("support disable = %d, want 403", a.status)
	}
}

func TestCustomRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, member{"owner@example.com", "Owner", "owner"}, member{"dev@example.com", "Dev", "developer"})
	b := e.signedIn(t, "owner@example.com")
	form := b.open(t, "/dashboard/roles/new")
	for _, want := range []string{`<label for="role-name">`, `value="api:view-any-contact"`, `value="dashboard:manage-users"`, "<legend>Dashboard</legend>"} {
		if !strings.Contains(form.body, want) {
			t.Errorf("new role form lacks %s", want)
		}
	}
	token := csrf(t, form)
	tests := []struct {
		name   string
		form   url.Values
		status int
		text   string
	}{
		{"no csrf", url.Values{"name": {"auditor"}, "abilities": {"api:view-any-contact"}}, 419, "Page expired"},
		{"unknown ability", url.Values{"_csrf": {token}, "name": {"auditor"}, "abilities": {"api:fly"}}, 403, "Not allowed"},
		{"bad name", url.Values{"_csrf": {token}, "name": {"Bad Name"}, "abilities": {"api:view-any-contact"}}, 422, "must start with a lower-case"},
		{"no abilities", url.Values{"_csrf": {token}, "name": {"auditor"}}, 422, "at least one ability"},
		{"default name", url.Values{"_csrf": {token}, "name": {"owner"}, "abilities": {"api:view-any-contact"}}, 422, "already been taken"},
	}
	for _, tc := range tests {
		a := b.do(t, http.MethodPost, "/dashboard/roles", tc.form)
		if a.status != tc.status || !strings.Contains(a.body, tc.text) {
			t.Errorf("%s: %d, want %d with %q", tc.name, a.status, tc.status, tc.text)
		}
	}
	a := b.do(t, http.MethodPost, "/dashboard/roles", url.Values{"_csrf": {token}, "name": {"Bad Name"}, "abilities": {"api:view-any-webhook"}})
	if !strings.Contains(a.body, `value="api:view-any-webhook" checked`) || !strings.Contains(a.body, `value="Bad Name"`) {
		t.Error("the refused form does not keep what was entered")
	}

	a = b.do(t, http.MethodPost, "/dashboard/roles", url.Values{"_csrf": {token}, "name": {"auditor"}, "abilities": {"api:view-any-contact", "api:view-any-webhook"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/roles/auditor?notice=created" {
		t.Fatalf("create = %d to %q", a.status, a.header.Get("Location"))
	}
	edit := b.open(t, "/dashboard/roles/auditor?notice=created")
	if !strings.Contains(edit.body, `value="api:view-any-webhook" checked`) || !strings.Contains(edit.body, `action="/dashboard/roles/auditor"`) ||
		!strings.Contains(edit.body, "The role is created") {
		t.Errorf("edit page:\n%s", edit.body)
	}
	a = b.do(t, http.MethodPost, "/dashboard/roles/auditor", url.Values{"_csrf": {token}, "abilities": {"api:view-any-receivable"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/dashboard/roles/auditor?notice=saved" {
		t.Fatalf("update = %d to %q", a.status, a.header.Get("Location"))
	}
	edit = b.open(t, "/dashboard/roles/auditor")
	if strings.Contains(edit.body, `value="api:view-any-webhook" checked`) || !strings.Contains(edit.body, `value="api:view-any-receivable" checked`) {
		t.Error("the update did not replace the abilities")
	}
	if a := b.do(t, http.MethodPost, "/dashboard/roles/auditor", url.Values{"abilities": {"api:view-any-receivable"}}); a.status != 419 {
		t.Errorf("update without csrf = %d, want 419", a.status)
	}
	users := b.open(t, "/dashboard/users")
	if !strings.Contains(users.body, `href="/dashboard/roles/auditor"`) || !strings.Contains(users.body, `<option value="auditor">`) {
		t.Error("the users page does not list the custom role")
	}

	// Default roles: read-only, and identity-svc refuses a forged edit.
	owner := b.open(t, "/dashboard/roles/owner")
	if strings.Contains(owner.body, `action="/dashboard/roles/owner"`) || !strings.Contains(owner.body, "abilities are fixed") {
		t.Errorf("default role page:\n%s", owner.body)
	}
	a = b.do(t, http.MethodPost, "/dashboard/roles/developer", url.Values{"_csrf": {token}, "abilities": {"api:view-any-contact"}})
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "cannot be changed") {
		t.Errorf("edit of a default role: %d", a.status)
	}
	b.wantGet(t, "/dashboard/roles/nobody", http.StatusNotFound, "an unknown role")
	b.wantGet(t, "/dashboard/roles/BAD%00", http.StatusNotFound, "a malformed role name")
	b.wantGet(t, "/dashboard/roles/"+strings.Repeat("a", 100), http.StatusNotFound, "a long role name")
	if a := b.do(t, http.MethodPost, "/dashboard/roles/nobody", url.Values{"_csrf": {token}, "abilities": {"api:view-any-contact"}}); a.status != http.StatusNotFound {
		t.Errorf("update of an unknown role = %d, want 404", a.status)
	}

	// A developer manages no roles.
	d := e.signedIn(t, "dev@example.com")
	d.wantGet(t, "/dashboard/roles/new", http.StatusForbidden, "developer new role")
	d.wantGet(t, "/dashboard/roles/auditor", http.StatusForbidden, "developer role page")
	acct := d.open(t, "/dashboard/account")
	if a := d.do(t, http.MethodPost, "/dashboard/roles", url.Values{"_csrf": {csrf(t, acct)}, "name": {"mine"}, "abilities": {"api:view-any-contact"}}); a.status != http.StatusForbidden {
		t.Errorf("developer create role = %d, want 403", a.status)
	}
}
