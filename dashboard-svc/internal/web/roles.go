package web

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// roleNamePattern is the form of a role name (identity-svc's rule); a path
// segment of another form is no role.
var roleNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// assignable groups the abilities a role may get from the signed-in user:
// the API abilities of their role, in the catalogue's order, and the
// dashboard's own that they hold.
func assignable(u *identity.User) []abilityGroup {
	groups := mintable(u)
	var dash []string
	for _, ab := range []string{abilityManageTokens, abilityManageUsers} {
		if slices.Contains(u.Abilities, ab) {
			dash = append(dash, ab)
		}
	}
	if len(dash) > 0 {
		groups = append(groups, abilityGroup{Name: "Dashboard", Abilities: dash})
	}
	return groups
}

type roleData struct {
	Name string
	// New: the form creates a role (it asks for the name).
	New bool
	// Default: one of the four fixed roles, shown read-only.
	Default   bool
	Abilities []string
	Groups    []abilityGroup
	Selected  map[string]bool
}

func roleNotice(code string) string {
	switch code {
	case "created":
		return "The role is created. Invite users with it on Users and roles."
	case "saved":
		return "The role's abilities are saved: its users hold them from their next page."
	}
	return ""
}

func (a *App) renderRole(c *fiber.Ctx, d roleData, errs map[string]string) error {
	title := "Role " + d.Name
	if d.New {
		title = "New role"
	}
	return a.render(c, "role", page{Title: title, Nav: "users", Data: d, Errors: errs, Form: map[string]string{"name": d.Name},
		Notice: roleNotice(c.Query("notice"))})
}

func (a *App) newRolePage(c *fiber.Ctx) error {
	return a.renderRole(c, roleData{New: true, Groups: assignable(currentUser(c)), Selected: map[string]bool{}}, nil)
}

// rolePage shows a role: a default one read-only, a custom one as a form
// of its abilities.
func (a *App) rolePage(c *fiber.Ctx) error {
	name := c.Params("name")
	if !roleNamePattern.MatchString(name) {
		return &pageError{status: http.StatusNotFound}
	}
	roles, err := a.identity.Roles(c.UserContext(), current(c).TenantID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(roles, func(r identity.Role) bool { return r.Name == name })
	if i < 0 {
		return &pageError{status: http.StatusNotFound}
	}
	d := roleData{Name: name, Default: roles[i].Default, Abilities: roles[i].Abilities,
		Groups: assignable(currentUser(c)), Selected: map[string]bool{}}
	for _, ab := range roles[i].Abilities {
		d.Selected[ab] = true
	}
	return a.renderRole(c, d, nil)
}

// roleForm reads the ticked abilities. One the signed-in user's role does
// not hold is refused here (403) before identity-svc, which refuses it too.
func roleForm(c *fiber.Ctx) ([]string, map[string]bool, error) {
	u := currentUser(c)
	abilities := []string{}
	selected := map[string]bool{}
	for _, v := range c.Request().PostArgs().PeekMulti("abilities") {
		ab := string(v)
		known := authz.Known(ab) || ab == abilityManageTokens || ab == abilityManageUsers
		if !known || !slices.Contains(u.Abilities, ab) {
			return nil, nil, &pageError{status: http.StatusForbidden}
		}
		abilities = append(abilities, ab)
		selected[ab] = true
	}
	return abilities, selected, nil
}

// roleAnswer turns identity-svc's answer to a role write into a page: 422
// re-renders the form with the messages, 403 and 404 are themselves.
func (a *App) roleAnswer(c *fiber.Ctx, err error, d roleData, notice string) error {
	if fields, invalid := validation(err, nil); invalid {
		if !d.New {
			if err := a.markDefault(c, &d); err != nil {
				return err
			}
		}
		c.Status(http.StatusUnprocessableEntity)
		return a.renderRole(c, d, fields)
	}
	if err != nil {
		return peerError(err)
	}
	return c.Redirect(Base+"/roles/"+d.Name+"?notice="+notice, http.StatusSeeOther)
}

// markDefault shows a refused edit of a default role as that role is: its
// own abilities, read-only, not what the form sent.
func (a *App) markDefault(c *fiber.Ctx, d *roleData) error {
	roles, err := a.identity.Roles(c.UserContext(), current(c).TenantID)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(roles, func(r identity.Role) bool { return r.Name == d.Name }); i >= 0 && roles[i].Default {
		d.Default, d.Abilities = true, roles[i].Abilities
	}
	return nil
}

// createRole creates a custom role with the abilities ticked, all within
// the signed-in owner's own; identity-svc validates the name and enforces.
func (a *App) createRole(c *fiber.Ctx) error {
	abilities, selected, err := roleForm(c)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	d := roleData{Name: name, New: true, Groups: assignable(currentUser(c)), Selected: selected}
	_, err = a.identity.CreateRole(c.UserContext(), current(c).TenantID, currentUser(c).ID, identity.Role{Name: name, Abilities: abilities})
	return a.roleAnswer(c, err, d, "created")
}

// updateRole replaces a custom role's abilities (a default role is
// refused by identity-svc: 422, shown on the page).
func (a *App) updateRole(c *fiber.Ctx) error {
	name := c.Params("name")
	if !roleNamePattern.MatchString(name) {
		return &pageError{status: http.StatusNotFound}
	}
	abilities, selected, err := roleForm(c)
	if err != nil {
		return err
	}
	d := roleData{Name: name, Abilities: abilities, Groups: assignable(currentUser(c)), Selected: selected}
	_, err = a.identity.UpdateRole(c.UserContext(), current(c).TenantID, currentUser(c).ID, identity.Role{Name: name, Abilities: abilities})
	return a.roleAnswer(c, err, d, "saved")
}
