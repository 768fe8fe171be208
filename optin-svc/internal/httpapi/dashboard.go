package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/wire"
)

// AbilityCreateOptInCode gates creating a code from the dashboard (the
// public API has no code create).
const AbilityCreateOptInCode = "api:create-opt-in-code"

// The dashboard's internal routes: what the tenant dashboard does that
// the public API does not (create a code, count a code's consents by
// status, lift a suppression entry by its id since the list shows only the
// last four digits of the numbers). The dashboard calls them through
// optin-svc/client with the signed-in user's internal token, so the same
// gates, tenant scope and idempotency apply as on the API.
func (h *Handlers) dashboardRoutes(internal fiber.Router, idem func(idempotency.Handler) fiber.Handler) {
	codes := internal.Group("/opt-in-codes", optInEnabled)
	codes.Post("", authz.Require(AbilityCreateOptInCode), idem(h.createTenantCode))
	codes.Get("/consent-counts", authz.Require(AbilityViewAnyOptInCode), h.codeConsentCounts)
	internal.Delete("/suppression-list/entries/:entry", authz.Require(AbilityDeleteSuppression), idem(h.deleteSuppressionEntry))
}

// createTenantCode answers POST /internal/v1/opt-in-codes: the code create
// of the operator plane, for the tenant of the token.
func (h *Handlers) createTenantCode(c *fiber.Ctx, tx idempotency.Tx) error {
	var body codeBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	s := scope(c).WithTx(tx)
	code, err := h.app.CreateCode(c.UserContext(), s.Tx, s.TenantID, app.CodeInput(body))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewCode(code, h.app.CodeURL(code)))
}

// consentCounts are a code's consents per status on the wire.
type consentCounts struct {
	Confirmed int `json:"confirmed"`
	Pending   int `json:"pending"`
	Revoked   int `json:"revoked"`
}

// codeConsentCounts answers GET /internal/v1/opt-in-codes/consent-counts:
// {code id: {confirmed, pending, revoked}} for the tenant's codes that have
// consents.
func (h *Handlers) codeConsentCounts(c *fiber.Ctx) error {
	counts, err := h.app.CodeConsentCounts(c.UserContext(), scope(c))
	if err != nil {
		return err
	}
	out := make(map[string]consentCounts, len(counts))
	for id, n := range counts {
		out[id] = consentCounts{Confirmed: n.Confirmed, Pending: n.Pending, Revoked: n.Revoked}
	}
	return httpx.Data(c, http.StatusOK, out)
}

// deleteSuppressionEntry answers DELETE
// /internal/v1/suppression-list/entries/{entry}: DELETE
// /api/v1/suppression-list/{contactPhone} for the entry with that id.
// With an Idempotency-Key, a repeated removal answers the first's 204.
func (h *Handlers) deleteSuppressionEntry(c *fiber.Ctx, tx idempotency.Tx) error {
	if err := h.app.DeleteSuppressionByID(c.UserContext(), scope(c).WithTx(tx), strings.Clone(c.Params("entry"))); err != nil {
		return err
	}
	return httpx.NoContent(c)
}
