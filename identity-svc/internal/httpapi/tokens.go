package httpapi

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/listtotal"
)

type createTokenRequest struct {
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
	// ExpiresAt is parsed here rather than by encoding/json so that a bad
	// value is reported on the field.
	ExpiresAt *string `json:"expires_at"`
}

// createToken answers POST /admin/v1/tenants/{tenant}/tokens with the
// plaintext token, shown only this once.
func (h *Handlers) createToken(c *fiber.Ctx) error {
	var req createTokenRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	m := token.Mint{Name: req.Name, Abilities: req.Abilities}
	if req.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339Nano, *req.ExpiresAt)
		if err != nil {
			return apierr.Field("expires_at", "The expires at field must be an RFC 3339 date-time.")
		}
		m.ExpiresAt = &t
	}
	minted, err := h.app.CreateToken(c.UserContext(), c.Params("tenant"), m)
	if err != nil {
		return err
	}
	t := minted.Token
	return httpx.Data(c, statusCreated, client.NewToken{
		ID:        t.ID,
		Name:      t.Name,
		Abilities: t.Abilities,
		ExpiresAt: wire.TimePtr(t.ExpiresAt),
		Token:     minted.Plaintext,
	})
}

// listTokens answers GET /admin/v1/tenants/{tenant}/tokens (no secrets).
func (h *Handlers) listTokens(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListTokens(c.UserContext(), c.Params("tenant"), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.Tokens(list), page, listtotal.Exact(total))
}

// revokeToken answers DELETE /admin/v1/tenants/{tenant}/tokens/{id}.
func (h *Handlers) revokeToken(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return apierr.NotFound()
	}
	if err := h.app.RevokeToken(c.UserContext(), c.Params("tenant"), id); err != nil {
		return err
	}
	return httpx.NoContent(c)
}
