package web

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
)

// userRoutes are the users and roles pages (owners only: dashboard:manage-users).
func (a *App) userRoutes(in fiber.Router) {
	in.Get("/users", a.requireAbility(abilityManageUsers), a.usersPage)
	in.Post("/users", a.requireAbility(abilityManageUsers), a.inviteUser)
}

type usersData struct {
	Users []identity.User
	Roles []identity.Role
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
	return usersData{Users: users.Data, Roles: roles}, nil
}

func (a *App) usersPage(c *fiber.Ctx) error {
	d, err := a.usersData(c)
	if err != nil {
		return err
	}
	return a.render(c, "users", page{Title: "Users and roles", Nav: "users", Data: d, Form: map[string]string{"role": "developer"}})
}

// inviteUser invites a user of the tenant (identity-svc checks again that
// the signed-in user's role manages users) and shows the one-time
// set-password link to hand over.
func (a *App) inviteUser(c *fiber.Ctx) error {
	in := identity.UserInput{Email: strings.TrimSpace(c.FormValue("email")), Name: strings.TrimSpace(c.FormValue("name")),
		Role: c.FormValue("role")}
	invited, err := a.identity.InviteUser(c.UserContext(), current(c).TenantID, currentUser(c).ID, in)
	fields, invalid := validation(err)
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
