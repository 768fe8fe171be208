package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/listtotal"
)

type inviteRequest struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role"`
}

// createUser answers POST /admin/v1/tenants/{tenant}/users: the user and
// its one-time set-password link.
func (h *Handlers) createUser(c *fiber.Ctx) error {
	var req inviteRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	inv, err := h.app.InviteUser(c.UserContext(), c.Params("tenant"), user.Invite(req))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusCreated, client.NewUser{User: wire.User(inv.User), SetPasswordURL: inv.Link})
}

// listUsers answers GET .../tenants/{tenant}/users on both planes.
func (h *Handlers) listUsers(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListUsers(c.UserContext(), c.Params("tenant"), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.Users(list), page, listtotal.Exact(total))
}

// getUser answers GET /internal/v1/tenants/{tenant}/users/{user}.
func (h *Handlers) getUser(c *fiber.Ctx) error {
	u, err := h.app.GetUser(c.UserContext(), c.Params("tenant"), c.Params("user"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.User(u))
}

// disableUser answers POST .../tenants/{tenant}/users/{user}/disable.
func (h *Handlers) disableUser(c *fiber.Ctx) error {
	u, err := h.app.DisableUser(c.UserContext(), c.Params("tenant"), c.Params("user"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.User(u))
}

// listRoles answers GET /internal/v1/tenants/{tenant}/roles.
func (h *Handlers) listRoles(c *fiber.Ctx) error {
	roles, err := h.app.ListRoles(c.UserContext(), c.Params("tenant"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.Roles(roles))
}

type signInRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// signIn answers POST /internal/v1/sign-in: the user whose email and
// password match, 401 otherwise, 429 sign_in_locked while locked out.
func (h *Handlers) signIn(c *fiber.Ctx) error {
	var req signInRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	u, err := h.app.SignIn(c.UserContext(), req.Email, req.Password)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.User(u))
}

type setPasswordRequest struct {
	Token    string `json:"token"`
	Password string `json:"password"`
}

// setPassword answers POST /internal/v1/set-password: the one-time link's
// token and the new password.
func (h *Handlers) setPassword(c *fiber.Ctx) error {
	var req setPasswordRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	u, err := h.app.SetPasswordWithLink(c.UserContext(), req.Token, req.Password)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.User(u))
}

type changePasswordRequest struct {
	CurrentPassword string `json:"current_password"`
	Password        string `json:"password"`
}

// changePassword answers POST /internal/v1/tenants/{tenant}/users/{user}/password.
func (h *Handlers) changePassword(c *fiber.Ctx) error {
	var req changePasswordRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	if err := h.app.ChangePassword(c.UserContext(), c.Params("tenant"), c.Params("user"), req.CurrentPassword, req.Password); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

// userToken answers POST /internal/v1/tenants/{tenant}/users/{user}/internal-token:
// an internal JWT with the abilities of the user's role.
func (h *Handlers) userToken(c *fiber.Ctx) error {
	st, err := h.app.IssueUserToken(c.UserContext(), c.Params("tenant"), c.Params("user"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, client.ServiceToken{InternalToken: st.InternalToken, InternalTokenExpiresAt: st.ExpiresAt.UTC()})
}

type userTokenRequest struct {
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
}

// createUserToken answers POST /internal/v1/tenants/{tenant}/users/{user}/tokens:
// an API token minted by a user, only with abilities of the user's role
// (403 otherwise), shown once.
func (h *Handlers) createUserToken(c *fiber.Ctx) error {
	var req userTokenRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	minted, err := h.app.CreateUserToken(c.UserContext(), c.Params("tenant"), c.Params("user"), token.Mint{Name: req.Name, Abilities: req.Abilities})
	if err != nil {
		return err
	}
	t := minted.Token
	return httpx.Data(c, statusCreated, client.NewToken{ID: t.ID, Name: t.Name, Abilities: t.Abilities,
		ExpiresAt: wire.TimePtr(t.ExpiresAt), Token: minted.Plaintext})
}

// inviteAs answers POST /internal/v1/tenants/{tenant}/users/{user}/invitations:
// a user invited by a signed-in user whose role manages users (403
// otherwise), with its one-time set-password link.
func (h *Handlers) inviteAs(c *fiber.Ctx) error {
	var req inviteRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	inv, err := h.app.InviteUserAs(c.UserContext(), c.Params("tenant"), c.Params("user"), user.Invite(req))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusCreated, client.NewUser{User: wire.User(inv.User), SetPasswordURL: inv.Link})
}
