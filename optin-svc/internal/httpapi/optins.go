package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/wire"
)

// Default page sizes (contract section 2).
const (
	codesPerPage    = 15
	consentsPerPage = 25
)

// optInEnabled hides the opt-in routes of tenants whose opt_in flag is off:
// 404 route_not_found, as if they did not exist (spec section 4), before
// any ability check.
func optInEnabled(c *fiber.Ctx) error {
	claims := authz.ClaimsFrom(c)
	if claims == nil {
		return apierr.Unauthenticated()
	}
	if !claims.Flags.OptIn {
		return apierr.RouteNotFound()
	}
	return c.Next()
}

// listCodes answers GET /api/v1/opt-in-codes?active=true|false.
func (h *Handlers) listCodes(c *fiber.Ctx) error {
	var live *bool
	v, ok, err := httpx.QueryValue(c, "active")
	if err != nil {
		return err
	}
	if ok {
		switch v {
		case "true", "1":
			t := true
			live = &t
		case "false", "0":
			f := false
			live = &f
		default:
			return apierr.Field("active", "The active field must be true or false.")
		}
	}
	page, err := httpx.ParsePage(c, codesPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListCodes(c.UserContext(), scope(c), live, appPage(page))
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewCodes(list, h.app.CodeURL), page, listtotal.Exact(total))
}

// showCode answers GET /api/v1/opt-in-codes/{optInCode}.
func (h *Handlers) showCode(c *fiber.Ctx) error {
	code, err := h.app.GetCode(c.UserContext(), scope(c), c.Params("optInCode"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewCode(code, h.app.CodeURL(code)))
}

// listConsents answers GET /api/v1/opt-ins?status=&opt_in_code_id=&contact_id=&since=.
func (h *Handlers) listConsents(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, consentsPerPage)
	if err != nil {
		return err
	}
	qr := httpx.Queries(c)
	q := app.ConsentQuery{
		Status: qr.Text("status"), OptInCodeID: qr.Text("opt_in_code_id"), ContactID: qr.Text("contact_id"),
		// A '+' of a UTC offset sent unencoded arrives as a space.
		Since: strings.ReplaceAll(qr.Text("since"), " ", "+"),
	}
	if err := qr.Err(); err != nil {
		return err
	}
	if c.Context().QueryArgs().Has("status") && q.Status == "" {
		return apierr.Field("status", "The selected status is invalid (confirmed, pending, revoked).")
	}
	list, total, err := h.app.ListConsents(c.UserContext(), scope(c), q, appPage(page))
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewConsents(list), page, total)
}

// codeBody is the body of the operator plane's code create.
type codeBody struct {
	Name        string `json:"name"`
	IsDefault   *bool  `json:"is_default"`
	DoubleOptIn *bool  `json:"double_opt_in"`
	IsLive      *bool  `json:"is_live"`
}

// createCode answers POST /admin/v1/tenants/{tenant}/opt-in-codes.
func (h *Handlers) createCode(c *fiber.Ctx) error {
	tenant, err := adminTenant(c)
	if err != nil {
		return err
	}
	var body codeBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	code, err := h.app.CreateCode(c.UserContext(), idempotency.Tx{}, tenant, app.CodeInput(body))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewCode(code, h.app.CodeURL(code)))
}
