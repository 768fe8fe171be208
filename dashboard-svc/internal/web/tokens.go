package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// abilityGroup is a titled set of abilities on the new-token form.
type abilityGroup struct {
	Name      string
	Abilities []string
}

// mintable groups the API abilities of the user's role, in the catalogue's
// order: the only ones the form offers.
func mintable(u *identity.User) []abilityGroup {
	var out []abilityGroup
	for _, g := range authz.Groups() {
		var in []string
		for _, a := range g.Abilities {
			if slices.Contains(u.Abilities, a) {
				in = append(in, a)
			}
		}
		if len(in) > 0 {
			out = append(out, abilityGroup{Name: g.Name, Abilities: in})
		}
	}
	return out
}

type tokensData struct {
	Tokens []identity.Token
	Total  int
	// Created is the token just minted: shown this once.
	Created *identity.NewToken
}

func (a *App) tokensPage(c *fiber.Ctx) error {
	list, err := a.identity.Tokens(c.UserContext(), current(c).TenantID, identity.ListOptions{PerPage: 100})
	if err != nil {
		return err
	}
	return a.render(c, "tokens", page{Title: "API tokens", Nav: "tokens", Notice: noticeOf(c.Query("notice")),
		Data: tokensData{Tokens: list.Data, Total: list.Meta.Total}})
}

type newTokenData struct {
	Groups   []abilityGroup
	Selected map[string]bool
}

func (a *App) newTokenPage(c *fiber.Ctx) error {
	return a.render(c, "token-new", page{Title: "New API token", Nav: "tokens",
		Data: newTokenData{Groups: mintable(currentUser(c)), Selected: map[string]bool{}}})
}

// createToken mints a token with the abilities ticked. An ability outside
// the user's role is refused here (403) before identity-svc, which refuses
// it too.
func (a *App) createToken(c *fiber.Ctx) error {
	u := currentUser(c)
	name := strings.TrimSpace(c.FormValue("name"))
	var abilities []string
	for _, v := range c.Request().PostArgs().PeekMulti("abilities") {
		abilities = append(abilities, string(v))
	}
	for _, ab := range abilities {
		if !authz.Known(ab) || !slices.Contains(u.Abilities, ab) {
			return &pageError{status: http.StatusForbidden}
		}
	}
	selected := map[string]bool{}
	for _, ab := range abilities {
		selected[ab] = true
	}
	p := page{Title: "New API token", Nav: "tokens", Form: map[string]string{"name": name},
		Data: newTokenData{Groups: mintable(u), Selected: selected}}
	errs := map[string]string{}
	if name == "" {
		errs["name"] = "Give the token a name that says where it is used."
	}
	if len(abilities) == 0 {
		errs["abilities"] = "Choose at least one ability."
	}
	if len(errs) > 0 {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = errs
		return a.render(c, "token-new", p)
	}
	created, err := a.identity.CreateUserToken(c.UserContext(), current(c).TenantID, u.ID, name, abilities)
	if fields, ok := validation(err, nil); ok {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = fields
		return a.render(c, "token-new", p)
	}
	if identity.StatusOf(err) == http.StatusForbidden {
		return &pageError{status: http.StatusForbidden}
	}
	if err != nil {
		return err
	}
	list, err := a.identity.Tokens(c.UserContext(), current(c).TenantID, identity.ListOptions{PerPage: 100})
	if err != nil {
		return err
	}
	c.Status(http.StatusCreated)
	return a.render(c, "tokens", page{Title: "API tokens", Nav: "tokens",
		Data: tokensData{Tokens: list.Data, Total: list.Meta.Total, Created: created}})
}

func (a *App) revokeToken(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return fiber.ErrNotFound
	}
	err = a.identity.RevokeToken(c.UserContext(), current(c).TenantID, id)
	if identity.StatusOf(err) == http.StatusNotFound {
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	return c.Redirect(Base+"/tokens?notice=revoked", http.StatusSeeOther)
}

func (a *App) tokenRoutes(in fiber.Router) {
	in.Get("/tokens", a.requireAbility(abilityManageTokens), a.tokensPage)
	in.Get("/tokens/new", a.requireAbility(abilityManageTokens), a.newTokenPage)
	in.Post("/tokens", a.requireAbility(abilityManageTokens), a.createToken)
	in.Post("/tokens/:id/revoke", a.requireAbility(abilityManageTokens), a.revokeToken)
}
