package clienttest

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// UsersSecret is the service secret the users fake requires.
const UsersSecret = "fake-identity-service-secret"

// Users is a fake identity-svc for the tenant dashboard's tests: the
// service-to-service routes of users, sign-in, set-password links, user
// tokens and invitations, in memory. It applies the rules callers depend on
// (the service secret, a token only with the abilities of the user's role,
// disabled users refused, one-time links) and none of the storage: the real
// rules are tested in identity-svc.
type Users struct {
	URL string

	mu        sync.Mutex
	seq       int
	users     map[string]*fakeUser // id → user
	links     map[string]string    // link token → user id
	tokens    map[string][]client.Token
	signIns   map[string]int // email → sign-in calls
	tokenSeq  int64
	roleNames map[string][]string
}

type fakeUser struct {
	client.User
	password string
}

// Roles are the fake's roles: the abilities of each default role, close
// enough to identity-svc's for the pages (owner holds everything).
func Roles() map[string][]string {
	owner := append(authz.Assignable(), "dashboard:manage-tokens", "dashboard:manage-users")
	return map[string][]string{
		"owner":     owner,
		"developer": {"api:view-any-contact", "api:view-contact", "api:view-any-webhook", "api:create-webhook", "dashboard:manage-tokens"},
		"finance":   {"api:view-any-receivable", "api:create-receivable", "api:view-any-contact"},
		"support":   {"api:view-any-contact", "api:view-contact"},
	}
}

// NewUsers starts the users fake until the test ends.
func NewUsers(t testing.TB) *Users {
	f := &Users{users: map[string]*fakeUser{}, links: map[string]string{}, tokens: map[string][]client.Token{},
		signIns: map[string]int{}, roleNames: Roles()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /internal/v1/sign-in", f.signIn)
	mux.HandleFunc("POST /internal/v1/set-password", f.setPassword)
	mux.HandleFunc("GET /internal/v1/tenants/{tenant}/users", f.listUsers)
	mux.HandleFunc("GET /internal/v1/tenants/{tenant}/users/{user}", f.getUser)
	mux.HandleFunc("GET /internal/v1/tenants/{tenant}/roles", f.listRoles)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/users/{user}/password", f.changePassword)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/users/{user}/tokens", f.createToken)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/users/{user}/internal-token", f.userToken)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/users/{user}/invitations", f.invite)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/users/{user}/disable", f.disableAs)
	mux.HandleFunc("POST /internal/v1/tenants/{tenant}/roles", f.createRole)
	mux.HandleFunc("PUT /internal/v1/tenants/{tenant}/roles/{role}", f.updateRole)
	mux.HandleFunc("GET /internal/v1/tenants/{tenant}/tokens", f.listTokens)
	mux.HandleFunc("DELETE /internal/v1/tenants/{tenant}/tokens/{id}", f.revokeToken)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(UsersSecret)) != 1 {
			usersFail(w, http.StatusUnauthorized, "unauthenticated", nil)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// AddUser adds a user of tenant with a role and, unless password is
// empty, a password; it returns the user and a one-time set-password token.
func (f *Users) AddUser(tenant, email, name, role, password string) (client.User, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	id := fmt.Sprintf("01JMEMBER%017d", f.seq)
	now := time.Now().UTC().Truncate(time.Millisecond)
	u := &fakeUser{User: client.User{ID: id, TenantID: tenant, Email: email, Name: name, Role: role,
		Abilities: slices.Clone(f.roleNames[role]), PasswordSet: password != "", CreatedAt: now, UpdatedAt: now}, password: password}
	f.users[id] = u
	link := fmt.Sprintf("link-%d", f.seq)
	f.links[link] = id
	return u.User, link
}

// Disable disables a user.
func (f *Users) Disable(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	f.users[id].DisabledAt = &now
}

// Tokens returns a tenant's tokens.
func (f *Users) Tokens(tenant string) []client.Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.tokens[tenant])
}

func usersFail(w http.ResponseWriter, status int, code string, details map[string][]string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": code, "details": details}})
}

func usersData(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": v})
}

func usersCollection(w http.ResponseWriter, v any, total int) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": v, "meta": client.Meta{CurrentPage: 1, PerPage: 100, Total: total, LastPage: 1}})
}

func usersDecode(r *http.Request, v any) bool { return json.NewDecoder(r.Body).Decode(v) == nil }

func (f *Users) user(r *http.Request) *fakeUser {
	u := f.users[r.PathValue("user")]
	if u == nil || u.TenantID != r.PathValue("tenant") {
		return nil
	}
	return u
}

func (f *Users) signIn(w http.ResponseWriter, r *http.Request) {
	var in struct{ Email, Password string }
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	email := strings.ToLower(strings.TrimSpace(in.Email))
	f.signIns[email]++
	for _, u := range f.users {
		if u.Email == email && u.password != "" && u.password == in.Password && u.DisabledAt == nil {
			now := time.Now().UTC()
			u.LastSignInAt = &now
			usersData(w, http.StatusOK, u.User)
			return
		}
	}
	usersFail(w, http.StatusUnauthorized, "unauthenticated", nil)
}

func (f *Users) setPassword(w http.ResponseWriter, r *http.Request) {
	var in struct{ Token, Password string }
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	if len(in.Password) < 12 {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"password": {"The password field must be at least 12 characters."}})
		return
	}
	id, ok := f.links[in.Token]
	if !ok || f.users[id].DisabledAt != nil {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"token": {"The link is invalid, used or expired."}})
		return
	}
	delete(f.links, in.Token)
	u := f.users[id]
	u.password, u.PasswordSet = in.Password, true
	usersData(w, http.StatusOK, u.User)
}

func (f *Users) listUsers(w http.ResponseWriter, r *http.Request) {
	var out []client.User
	for _, u := range f.users {
		if u.TenantID == r.PathValue("tenant") {
			out = append(out, u.User)
		}
	}
	slices.SortFunc(out, func(a, b client.User) int { return strings.Compare(b.ID, a.ID) })
	usersCollection(w, out, len(out))
}

func (f *Users) getUser(w http.ResponseWriter, r *http.Request) {
	u := f.user(r)
	if u == nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	usersData(w, http.StatusOK, u.User)
}

func (f *Users) listRoles(w http.ResponseWriter, r *http.Request) {
	var out []client.Role
	for name, abilities := range f.roleNames {
		out = append(out, client.Role{Name: name, Abilities: abilities, Default: isDefaultRole(name)})
	}
	slices.SortFunc(out, func(a, b client.Role) int { return strings.Compare(a.Name, b.Name) })
	usersData(w, http.StatusOK, out)
}

func (f *Users) changePassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Current string `json:"current_password"`
		Next    string `json:"password"`
	}
	u := f.user(r)
	if u == nil || !usersDecode(r, &in) {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	if in.Current != u.password {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"current_password": {"The current password is incorrect."}})
		return
	}
	if len(in.Next) < 12 {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"password": {"The password field must be at least 12 characters."}})
		return
	}
	u.password = in.Next
	w.WriteHeader(http.StatusNoContent)
}

func (f *Users) createToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name      string   `json:"name"`
		Abilities []string `json:"abilities"`
	}
	u := f.user(r)
	if u == nil || u.DisabledAt != nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	if !slices.Contains(u.Abilities, "dashboard:manage-tokens") {
		usersFail(w, http.StatusForbidden, "forbidden", nil)
		return
	}
	for _, a := range in.Abilities {
		if !slices.Contains(u.Abilities, a) {
			usersFail(w, http.StatusForbidden, "forbidden", nil)
			return
		}
	}
	f.tokenSeq++
	tok := client.Token{ID: f.tokenSeq, Name: in.Name, Abilities: in.Abilities, CreatedAt: time.Now().UTC()}
	f.tokens[u.TenantID] = append([]client.Token{tok}, f.tokens[u.TenantID]...)
	usersData(w, http.StatusCreated, client.NewToken{ID: tok.ID, Name: tok.Name, Abilities: tok.Abilities,
		Token: fmt.Sprintf("pl_%d|%048d", tok.ID, tok.ID)})
}

func (f *Users) listTokens(w http.ResponseWriter, r *http.Request) {
	list := f.tokens[r.PathValue("tenant")]
	usersCollection(w, list, len(list))
}

func (f *Users) revokeToken(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for i, t := range f.tokens[r.PathValue("tenant")] {
		if t.ID == id {
			now := time.Now().UTC()
			f.tokens[r.PathValue("tenant")][i].RevokedAt = &now
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	usersFail(w, http.StatusNotFound, "resource_not_found", nil)
}

// UserTokenOf is the internal token the fake issues for a user: not a
// JWT, but a value tests can recognise ("user-token:<tenant>:<user>").
func UserTokenOf(tenant, user string) string { return "user-token:" + tenant + ":" + user }

func (f *Users) userToken(w http.ResponseWriter, r *http.Request) {
	u := f.user(r)
	if u == nil || u.DisabledAt != nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	usersData(w, http.StatusOK, client.ServiceToken{InternalToken: UserTokenOf(u.TenantID, u.ID),
		InternalTokenExpiresAt: time.Now().Add(time.Minute).UTC()})
}

func (f *Users) invite(w http.ResponseWriter, r *http.Request) {
	actor := f.user(r)
	if actor == nil || actor.DisabledAt != nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	if !slices.Contains(actor.Abilities, "dashboard:manage-users") {
		usersFail(w, http.StatusForbidden, "forbidden", nil)
		return
	}
	var in client.UserInput
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	if _, ok := f.roleNames[in.Role]; !ok {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"role": {"The selected role is invalid."}})
		return
	}
	for _, u := range f.users {
		if u.TenantID == actor.TenantID && u.Email == strings.ToLower(in.Email) {
			usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"email": {"The email has already been taken."}})
			return
		}
	}
	f.seq++
	id := fmt.Sprintf("01JMEMBER%017d", f.seq)
	now := time.Now().UTC()
	u := &fakeUser{User: client.User{ID: id, TenantID: actor.TenantID, Email: strings.ToLower(in.Email), Name: in.Name, Role: in.Role,
		Abilities: slices.Clone(f.roleNames[in.Role]), CreatedAt: now, UpdatedAt: now}}
	f.users[id] = u
	link := fmt.Sprintf("link-%d", f.seq)
	f.links[link] = id
	usersData(w, http.StatusCreated, client.NewUser{User: u.User, SetPasswordURL: "/dashboard/set-password?token=" + link})
}
