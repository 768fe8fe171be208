package clienttest

import (
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

// isDefaultRole reports whether name is a role the fake refuses to change.
func isDefaultRole(name string) bool {
	return name == "owner" || name == "developer" || name == "finance" || name == "support"
}

var roleNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// manager is the live actor of a users-and-roles request holding
// dashboard:manage-users, or nil after answering 404 or 403.
func (f *Users) manager(w http.ResponseWriter, tenant, actorID string) *fakeUser {
	actor := f.users[actorID]
	if actor == nil || actor.TenantID != tenant || actor.DisabledAt != nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return nil
	}
	if !slices.Contains(actor.Abilities, "dashboard:manage-users") {
		usersFail(w, http.StatusForbidden, "forbidden", nil)
		return nil
	}
	return actor
}

func (f *Users) disableAs(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ActorID string `json:"actor_id"`
	}
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	if f.manager(w, r.PathValue("tenant"), in.ActorID) == nil {
		return
	}
	u := f.user(r)
	if u == nil {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	if u.ID == in.ActorID {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"user": {"You cannot disable yourself."}})
		return
	}
	if u.Role == "owner" && u.DisabledAt == nil {
		owners := 0
		for _, o := range f.users {
			if o.TenantID == u.TenantID && o.Role == "owner" && o.DisabledAt == nil {
				owners++
			}
		}
		if owners == 1 {
			usersFail(w, http.StatusUnprocessableEntity, "validation_failed",
				map[string][]string{"user": {"This is the organisation's last active owner: make another user owner first."}})
			return
		}
	}
	if u.DisabledAt == nil {
		now := time.Now().UTC()
		u.DisabledAt = &now
	}
	usersData(w, http.StatusOK, u.User)
}

type roleBody struct {
	ActorID   string   `json:"actor_id"`
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
}

// checkRole answers 422 or 403 for abilities the actor cannot hand out
// and reports whether they pass.
func checkRole(w http.ResponseWriter, actor *fakeUser, abilities []string) bool {
	if len(abilities) == 0 {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"abilities": {"Choose at least one ability."}})
		return false
	}
	for _, a := range abilities {
		if !slices.Contains(actor.Abilities, a) {
			usersFail(w, http.StatusForbidden, "forbidden", nil)
			return false
		}
	}
	return true
}

func (f *Users) createRole(w http.ResponseWriter, r *http.Request) {
	var in roleBody
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	actor := f.manager(w, r.PathValue("tenant"), in.ActorID)
	if actor == nil {
		return
	}
	if !roleNamePattern.MatchString(in.Name) {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"name": {"The name must start with a lower-case letter."}})
		return
	}
	if _, taken := f.roleNames[in.Name]; taken {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"name": {"The name has already been taken."}})
		return
	}
	if !checkRole(w, actor, in.Abilities) {
		return
	}
	f.roleNames[in.Name] = slices.Clone(in.Abilities)
	usersData(w, http.StatusCreated, client.Role{Name: in.Name, Abilities: in.Abilities})
}

func (f *Users) updateRole(w http.ResponseWriter, r *http.Request) {
	var in roleBody
	if !usersDecode(r, &in) {
		usersFail(w, http.StatusBadRequest, "bad_request", nil)
		return
	}
	actor := f.manager(w, r.PathValue("tenant"), in.ActorID)
	if actor == nil {
		return
	}
	name := r.PathValue("role")
	if _, ok := f.roleNames[name]; !ok {
		usersFail(w, http.StatusNotFound, "resource_not_found", nil)
		return
	}
	if isDefaultRole(name) {
		usersFail(w, http.StatusUnprocessableEntity, "validation_failed", map[string][]string{"name": {"The default roles cannot be changed."}})
		return
	}
	if !checkRole(w, actor, in.Abilities) {
		return
	}
	f.roleNames[name] = slices.Clone(in.Abilities)
	for _, u := range f.users {
		if u.Role == name {
			u.Abilities = slices.Clone(in.Abilities)
		}
	}
	usersData(w, http.StatusOK, client.Role{Name: name, Abilities: in.Abilities})
}
