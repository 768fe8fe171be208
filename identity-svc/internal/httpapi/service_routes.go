package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
)

type serviceTokenRequest struct {
	TenantID  string   `json:"tenant_id"`
	Abilities []string `json:"abilities"`
	Service   string   `json:"service"`
}

// issueServiceToken answers POST /internal/v1/service-tokens: an internal
// JWT for a service acting for a tenant on its own behalf.
func (h *Handlers) issueServiceToken(c *fiber.Ctx) error {
	var req serviceTokenRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	st, err := h.app.IssueServiceToken(c.UserContext(), token.ServiceGrant{
		TenantID: req.TenantID, Abilities: req.Abilities, Service: req.Service,
	})
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, client.ServiceToken{
		InternalToken:          st.InternalToken,
		InternalTokenExpiresAt: st.ExpiresAt.UTC(),
	})
}

// internalTenant answers GET /internal/v1/tenants/{tenant}.
func (h *Handlers) internalTenant(c *fiber.Ctx) error {
	t, err := h.app.GetTenant(c.UserContext(), c.Params("tenant"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.Tenant(t))
}

// tenantBySMSNumber answers GET /internal/v1/tenants?sms_number=+E164 with
// the tenant that owns the sender number. A '+' sent unencoded in the query
// arrives as a space; it is read back as the '+' it was.
func (h *Handlers) tenantBySMSNumber(c *fiber.Ctx) error {
	number, err := httpx.Query(c, "sms_number")
	if err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(number, " "); ok {
		number = "+" + rest
	}
	t, err := h.app.TenantBySMSNumber(c.UserContext(), number)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.Tenant(t))
}
