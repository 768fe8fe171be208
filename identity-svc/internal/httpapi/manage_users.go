package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
)

// actorRequest names the signed-in user on whose behalf the dashboard acts.
type actorRequest struct {
	ActorID string `json:"actor_id"`
}

// disableUserAs answers POST /internal/v1/tenants/{tenant}/users/{user}/disable:
// the user disabled by a signed-in user whose role manages users.
func (h *Handlers) disableUserAs(c *fiber.Ctx) error {
	var req actorRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	u, err := h.app.DisableUserAs(c.UserContext(), c.Params("tenant"), req.ActorID, c.Params("user"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.User(u))
}

type roleRequest struct {
	ActorID   string   `json:"actor_id"`
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
}

// createRoleAs answers POST /internal/v1/tenants/{tenant}/roles: a custom
// role created by a signed-in user whose role manages users.
func (h *Handlers) createRoleAs(c *fiber.Ctx) error {
	var req roleRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	r, err := h.app.CreateRoleAs(c.UserContext(), c.Params("tenant"), req.ActorID, user.Role{Name: req.Name, Abilities: req.Abilities})
	if err != nil {
		return err
	}
	return httpx.Data(c, statusCreated, client.Role{Name: r.Name, Abilities: r.Abilities})
}

type roleUpdateRequest struct {
	ActorID   string   `json:"actor_id"`
	Abilities []string `json:"abilities"`
}

// updateRoleAs answers PUT /internal/v1/tenants/{tenant}/roles/{role}: a
// custom role's abilities replaced by a signed-in user whose role manages
// users.
func (h *Handlers) updateRoleAs(c *fiber.Ctx) error {
	var req roleUpdateRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	r, err := h.app.UpdateRoleAs(c.UserContext(), c.Params("tenant"), req.ActorID, user.Role{Name: c.Params("role"), Abilities: req.Abilities})
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, client.Role{Name: r.Name, Abilities: r.Abilities})
}
