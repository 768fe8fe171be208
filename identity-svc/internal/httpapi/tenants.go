package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/listtotal"
)

// defaultPerPage is the page size of the admin collections.
const defaultPerPage = 25

// createTenant answers POST /admin/v1/tenants.
func (h *Handlers) createTenant(c *fiber.Ctx) error {
	var p tenant.Patch
	if err := httpx.Decode(c, &p); err != nil {
		return err
	}
	t, err := h.app.CreateTenant(c.UserContext(), p)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusCreated, wire.Tenant(t))
}

// listTenants answers GET /admin/v1/tenants.
func (h *Handlers) listTenants(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListTenants(c.UserContext(), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.Tenants(list), page, listtotal.Exact(total))
}

// getTenant answers GET /admin/v1/tenants/{tenant}.
func (h *Handlers) getTenant(c *fiber.Ctx) error {
	t, err := h.app.GetTenant(c.UserContext(), c.Params("tenant"))
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.Tenant(t))
}

// updateTenant answers PATCH /admin/v1/tenants/{tenant}.
func (h *Handlers) updateTenant(c *fiber.Ctx) error {
	var p tenant.Patch
	if err := httpx.Decode(c, &p); err != nil {
		return err
	}
	t, err := h.app.UpdateTenant(c.UserContext(), c.Params("tenant"), p)
	if err != nil {
		return err
	}
	return httpx.Data(c, statusOK, wire.Tenant(t))
}
