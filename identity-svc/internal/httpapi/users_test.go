package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

const goodPassword = "correct horse battery"

// invite creates a user on the operator plane and returns it with the
// secret of its set-password link.
func (e *env) invite(t *testing.T, tenantID, email, role string) (client.User, string) {
	t.Helper()
	r := e.call(t, http.MethodPost, "/admin/v1/tenants/"+tenantID+"/users",
		`{"email":"`+email+`","name":"Ada Lovelace","role":"`+role+`"}`)
	expect(t, r, http.StatusCreated, "")
	var got client.NewUser
	r.data(t, &got)
	u, err := url.Parse(got.SetPasswordURL)
	if err != nil || u.Path != "/dashboard/set-password" || u.Query().Get("token") == "" {
		t.Fatalf("set_password_url %q is not a set-password link", got.SetPasswordURL)
	}
	return got.User, u.Query().Get("token")
}

// service sends a request on the service-to-service plane.
func (e *env) service(t *testing.T, method, path, body string) response {
	t.Helper()
	return e.callWith(t, method, path, body, "Bearer "+serviceSecret)
}

// activate invites a user and sets its password.
// userPost is one POST made as a user (the actor, or the token's owner)
// and the status and error code it must answer with.
type userPost struct {
	name, user, body string
	status           int
	code             string
}

// postAsUsers posts each case's body to path+user+suffix in a subtest and
// checks the status and error code; check, when given, looks further.
func (e *env) postAsUsers(t *testing.T, path, suffix string, cases []userPost, check func(*testing.T, userPost, response)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.service(t, http.MethodPost, path+tc.user+suffix, tc.body)
			expect(t, r, tc.status, tc.code)
			if check != nil {
				check(t, tc, r)
			}
		})
	}
}

// newAcmeUsers is the API with tenant Acme and two of its users activated
// with the emails and roles given; path is the path of Acme's users.
func newAcmeUsers(t *testing.T, email1, role1, email2, role2 string) (e *env, acme, path string, u1, u2 client.User) {
	t.Helper()
	e = newEnv(t)
	acme = e.createTenant(t, `{"name":"Acme"}`)
	u1 = e.activate(t, acme, email1, role1)
	u2 = e.activate(t, acme, email2, role2)
	return e, acme, "/internal/v1/tenants/" + acme + "/users/", u1, u2
}

func (e *env) activate(t *testing.T, tenantID, email, role string) client.User {
	t.Helper()
	u, secret := e.invite(t, tenantID, email, role)
	r := e.service(t, http.MethodPost, "/internal/v1/set-password", `{"token":"`+secret+`","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusOK, "")
	return u
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	u, _ := e.invite(t, tenantID, " Ada@Example.COM ", "developer")
	if u.Email != "ada@example.com" || u.Role != "developer" || u.PasswordSet || u.TenantID != tenantID {
		t.Errorf("created user %+v", u)
	}
	if !slices.Contains(u.Abilities, "dashboard:manage-tokens") || slices.Contains(u.Abilities, "api:create-contact") {
		t.Errorf("developer abilities %v", u.Abilities)
	}
	path := "/admin/v1/tenants/" + tenantID + "/users"
	tests := []struct {
		name, path, body, auth string
		status                 int
		code                   string
		field                  string
	}{
		{"email taken", path, `{"email":"ADA@example.com","name":"A","role":"owner"}`, adminToken, 422, "validation_failed", "email"},
		{"unknown role", path, `{"email":"b@example.com","name":"B","role":"pilot"}`, adminToken, 422, "validation_failed", "role"},
		{"bad email", path, `{"email":"not-an-email","name":"B","role":"owner"}`, adminToken, 422, "validation_failed", "email"},
		{"missing name", path, `{"email":"b@example.com","role":"owner"}`, adminToken, 422, "validation_failed", "name"},
		{"unknown field", path, `{"email":"b@example.com","name":"B","role":"owner","password":"x"}`, adminToken, 422, "validation_failed", "password"},
		{"unknown tenant", "/admin/v1/tenants/" + ids.New() + "/users", `{"email":"b@example.com","name":"B","role":"owner"}`, adminToken, 404, "resource_not_found", ""},
		{"no admin token", path, `{"email":"b@example.com","name":"B","role":"owner"}`, serviceSecret, 401, "unauthenticated", ""},
		{"not json", path, `{`, adminToken, 400, "bad_request", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.callWith(t, http.MethodPost, tc.path, tc.body, "Bearer "+tc.auth)
			expect(t, r, tc.status, tc.code)
			if tc.field != "" {
				if _, ok := r.errorDetails(t)[tc.field]; !ok {
					t.Errorf("details %s do not name %s", r.body, tc.field)
				}
			}
		})
	}
}

func TestSetPasswordAndSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	u, secret := e.invite(t, tenantID, "ada@example.com", "owner")

	// Before a password is set nobody signs in.
	r := e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusUnauthorized, "unauthenticated")

	r = e.service(t, http.MethodPost, "/internal/v1/set-password", `{"token":"`+secret+`","password":"short"}`)
	expect(t, r, 422, "validation_failed")
	r = e.service(t, http.MethodPost, "/internal/v1/set-password", `{"token":"`+secret+`","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusOK, "")
	// The link is spent.
	r = e.service(t, http.MethodPost, "/internal/v1/set-password", `{"token":"`+secret+`","password":"another good password"}`)
	expect(t, r, 422, "validation_failed")
	if _, ok := r.errorDetails(t)["token"]; !ok {
		t.Errorf("spent link: details %s do not name token", r.body)
	}
	r = e.service(t, http.MethodPost, "/internal/v1/set-password", `{"token":"forged","password":"another good password"}`)
	expect(t, r, 422, "validation_failed")

	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ADA@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusOK, "")
	var got client.User
	r.data(t, &got)
	if got.ID != u.ID || got.LastSignInAt == nil || !got.PasswordSet {
		t.Errorf("signed-in user %+v", got)
	}
	if strings.Contains(string(r.body), "argon2") {
		t.Error("the answer carries the password hash")
	}
	// Without the service secret the route is closed.
	r = e.callWith(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"`+goodPassword+`"}`, "Bearer "+adminToken)
	expect(t, r, http.StatusUnauthorized, "unauthenticated")
}

func TestSignInLockout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	e.activate(t, tenantID, "ada@example.com", "owner")
	for range 4 {
		r := e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"wrong password"}`)
		expect(t, r, http.StatusUnauthorized, "unauthenticated")
	}
	r := e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"wrong password"}`)
	expect(t, r, http.StatusTooManyRequests, "sign_in_locked")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After on a locked sign-in")
	}
	// Locked: even the right password is refused.
	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusTooManyRequests, "sign_in_locked")
	// Another email is not locked.
	e.activate(t, tenantID, "bob@example.com", "support")
	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"bob@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusOK, "")
}

func TestUsersTenantScopeAndDisable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acme := e.createTenant(t, `{"name":"Acme"}`)
	other := e.createTenant(t, `{"name":"Other"}`)
	u := e.activate(t, acme, "ada@example.com", "finance")
	e.activate(t, other, "ada@example.com", "support") // the same email in another tenant

	r := e.service(t, http.MethodGet, "/internal/v1/tenants/"+acme+"/users/"+u.ID, "")
	expect(t, r, http.StatusOK, "")
	r = e.service(t, http.MethodGet, "/internal/v1/tenants/"+other+"/users/"+u.ID, "")
	expect(t, r, http.StatusNotFound, "resource_not_found")
	r = e.service(t, http.MethodGet, "/internal/v1/tenants/"+acme+"/users", "")
	expect(t, r, http.StatusOK, "")
	var list []client.User
	r.data(t, &list)
	if len(list) != 1 || list[0].ID != u.ID {
		t.Errorf("acme's users %+v", list)
	}
	r = e.service(t, http.MethodGet, "/internal/v1/tenants/"+acme+"/roles", "")
	expect(t, r, http.StatusOK, "")
	var roles []client.Role
	r.data(t, &roles)
	var names []string
	for _, role := range roles {
		names = append(names, role.Name)
	}
	if !slices.Equal(names, []string{"developer", "finance", "owner", "support"}) {
		t.Errorf("roles %v", names)
	}

	r = e.call(t, http.MethodPost, "/admin/v1/tenants/"+acme+"/users/"+u.ID+"/disable", "")
	expect(t, r, http.StatusOK, "")
	var disabled client.User
	r.data(t, &disabled)
	if disabled.DisabledAt == nil {
		t.Error("disable left disabled_at empty")
	}
	// The disabled user's tenant no longer signs in; the other one's does.
	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"`+goodPassword+`"}`)
	expect(t, r, http.StatusOK, "")
	var signed client.User
	r.data(t, &signed)
	if signed.TenantID != other {
		t.Errorf("signed in to %s, want the other tenant", signed.TenantID)
	}
	r = e.service(t, http.MethodPost, "/internal/v1/tenants/"+acme+"/users/"+u.ID+"/internal-token", "")
	expect(t, r, http.StatusNotFound, "resource_not_found")
}

func TestUserTokensOnlyWithTheRolesAbilities(t *testing.T) {
	t.Parallel()
	e, acme, path, dev, fin := newAcmeUsers(t, "dev@example.com", "developer", "fin@example.com", "finance")
	e.postAsUsers(t, path, "/tokens", []userPost{
		{"role's abilities", dev.ID, `{"name":"ci","abilities":["api:view-any-contact","api:create-webhook"]}`, 201, ""},
		{"ability outside the role", dev.ID, `{"name":"ci","abilities":["api:view-any-contact","api:create-contact"]}`, 403, "forbidden"},
		{"role without tokens", fin.ID, `{"name":"ci","abilities":["api:view-any-receivable"]}`, 403, "forbidden"},
		{"dashboard ability", dev.ID, `{"name":"ci","abilities":["dashboard:manage-tokens"]}`, 422, "validation_failed"},
		{"unknown user", ids.New(), `{"name":"ci","abilities":["api:view-any-contact"]}`, 404, "resource_not_found"},
	}, nil)
	r := e.service(t, http.MethodPost, path+dev.ID+"/internal-token", "")
	expect(t, r, http.StatusOK, "")
	var st client.ServiceToken
	r.data(t, &st)
	verifier, err := authz.NewStaticVerifier(e.signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	claims, err := verifier.Verify(context.Background(), st.InternalToken)
	if err != nil {
		t.Fatal(err)
	}
	if claims.TenantID != acme || slices.Contains(claims.Abilities, "api:create-contact") ||
		!slices.Contains(claims.Abilities, "api:create-webhook") || slices.Contains(claims.Abilities, "dashboard:manage-tokens") {
		t.Errorf("user token claims %+v", claims)
	}
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acme := e.createTenant(t, `{"name":"Acme"}`)
	u := e.activate(t, acme, "ada@example.com", "owner")
	path := "/internal/v1/tenants/" + acme + "/users/" + u.ID + "/password"
	r := e.service(t, http.MethodPost, path, `{"current_password":"wrong one here","password":"a brand new password"}`)
	expect(t, r, 422, "validation_failed")
	if _, ok := r.errorDetails(t)["current_password"]; !ok {
		t.Errorf("details %s do not name current_password", r.body)
	}
	r = e.service(t, http.MethodPost, path, `{"current_password":"`+goodPassword+`","password":"a brand new password"}`)
	expect(t, r, http.StatusNoContent, "")
	r = e.service(t, http.MethodPost, "/internal/v1/sign-in", `{"email":"ada@example.com","password":"a brand new password"}`)
	expect(t, r, http.StatusOK, "")
}

func TestInviteAsUser(t *testing.T) {
	t.Parallel()
	e, _, path, owner, dev := newAcmeUsers(t, "owner@example.com", "owner", "dev@example.com", "developer")
	e.postAsUsers(t, path, "/invitations", []userPost{
		{"owner", owner.ID, `{"email":"new@example.com","name":"New","role":"support"}`, 201, ""},
		{"developer", dev.ID, `{"email":"x@example.com","name":"X","role":"owner"}`, 403, "forbidden"},
		{"taken", owner.ID, `{"email":"dev@example.com","name":"X","role":"support"}`, 422, "validation_failed"},
		{"unknown actor", ids.New(), `{"email":"y@example.com","name":"Y","role":"support"}`, 404, "resource_not_found"},
	}, func(t *testing.T, tc userPost, r response) {
		if tc.status == 201 {
			var got client.NewUser
			r.data(t, &got)
			if got.Role != "support" || !strings.Contains(got.SetPasswordURL, "/dashboard/set-password?token=") {
				t.Errorf("invited %+v", got)
			}
		}
	})
}
