package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/httpx"
)

type introspectRequest struct {
	Token string `json:"token"`
}

// introspect answers POST /internal/v1/introspect: the token's identity and
// an internal JWT, or 401 for any token that does not open.
func (h *Handlers) introspect(c *fiber.Ctx) error {
	var req introspectRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	in, err := h.app.Introspect(c.UserContext(), req.Token)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, client.Introspection{
		TenantID:               in.TenantID,
		TokenID:                in.TokenID,
		Abilities:              in.Abilities,
		Flags:                  in.Flags,
		Limits:                 in.Limits,
		InternalToken:          in.InternalToken,
		InternalTokenExpiresAt: in.InternalTokenExpiresAt.UTC(),
	})
}

// getJWKS answers GET /internal/v1/jwks with the signing key's public half.
func (h *Handlers) getJWKS(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.Send(h.jwks)
}
