package web

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
)

// userRoutes are the users and roles pages (owners only: dashboard:manage-users).
func (a *App) userRoutes(in fiber.Router) {
	manage := a.requireAbility(abilityManageUsers)
	in.Get("/users", manage, a.usersPage)
	in.Post("/users", manage, a.inviteUser)
	in.Post("/users/:id/disable", manage, a.disableUser)
	in.Get("/roles/new", manage, a.newRolePage)
	in.Post("/roles", manage, a.createRole)
	in.Get("/roles/:name", manage, a.rolePage)
	in.Post("/roles/:name", manage, a.updateRole)
}

type usersData struct {
	Users []identity.User
	Roles []identity.Role
	// Custom are the tenant's own roles, editable; Roles holds them too.
	Custom []identity.Role
	// Defaults are the four default roles, read-only.
	Defaults []identity.Role
	// Me is the signed-in user's id: no Disable button on their own row.
	Me string
	// Invited is the user just invited, with its one-time link: shown once.
	Invited *identity.NewUser
}

func (a *App) usersData(c *fiber.Ctx) (usersData, error) {
	tenant := current(c).TenantID
	users, err := a.identity.Users(c.UserContext(), tenant, identity.ListOptions{PerPage: 100})
	if err != nil {
		return usersData{}, err
	}
	roles, err := a.identity.Roles(c.UserContext(), tenant)
	if err != nil {
		return usersData{}, err
	}
	d := usersData{Users: users.Data, Roles: roles, Me: currentUser(c).ID}
	for _, r := range roles {
		if r.Default {
			d.Defaults = append(d.Defaults, r)
		} else {
			d.Custom = append(d.Custom, r)
		}
	}
	return d, nil
}

func usersNotice(code string) string {
	switch code {
	case "disabled":
		return "The user is disabled: their sessions have ended and they can no longer sign in."
	}
	return ""
}

func (a *App) usersPage(c *fiber.Ctx) error {
	d, err := a.usersData(c)
	if err != nil {
		return err
	}
	return a.render(c, "users", page{Title: "Users and roles", Nav: "users", Data: d, Form: map[string]string{"role": "developer"},
		Notice: usersNotice(c.Query("notice"))})
}

// inviteUser invites a user of the tenant (identity-svc checks again that
// the signed-in user's role manages users) and shows the one-time
// set-password link to hand over.
func (a *App) inviteUser(c *fiber.Ctx) error {
	in := identity.UserInput{Email: strings.TrimSpace(c.FormValue("email")), Name: strings.TrimSpace(c.FormValue("name")),
		Role: c.FormValue("role")}
	invited, err := a.identity.InviteUser(c.UserContext(), current(c).TenantID, currentUser(c).ID, in)
	fields, invalid := validation(err, nil)
	if err != nil && !invalid {
		if identity.StatusOf(err) == http.StatusForbidden {
			return &pageError{status: http.StatusForbidden}
		}
		return err
	}
	d, derr := a.usersData(c)
	if derr != nil {
		return derr
	}
	p := page{Title: "Users and roles", Nav: "users", Data: d}
	if invalid {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors, p.Form = fields, map[string]string{"email": in.Email, "name": in.Name, "role": in.Role}
		return a.render(c, "users", p)
	}
	d.Invited = invited
	p.Data = d
	p.Form = map[string]string{"role": "developer"}
	c.Status(http.StatusCreated)
	return a.render(c, "users", p)
}

// disableUser disables a user of the tenant through identity-svc, which
// decides (not oneself, never the last active owner: 422, shown on the
// page), then ends that user's dashboard sessions at once.
func (a *App) disableUser(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	se := current(c)
	_, err = a.identity.DisableUser(c.UserContext(), se.TenantID, currentUser(c).ID, id)
	if fields, invalid := validation(err, nil); invalid {
		d, derr := a.usersData(c)
		if derr != nil {
			return derr
		}
		msg := fields["user"]
		if msg == "" {
			msg = fields["form"]
		}
		c.Status(http.StatusUnprocessableEntity)
		return a.render(c, "users", page{Title: "Users and roles", Nav: "users", Data: d, Form: map[string]string{"role": "developer"},
			Errors: map[string]string{"disable": msg}})
	}
	if err != nil {
		return peerError(err)
	}
	if err := a.sessions.DeleteUser(c.UserContext(), se.TenantID, id, nil); err != nil {
		return err
	}
	return c.Redirect(Base+"/users?notice=disabled", http.StatusSeeOther)
}
