// Package httpapi is optin-svc's HTTP surface: the public API routes the
// gateway forwards under /api/v1 (suppression list, opt-in codes and
// consents), the operator plane under /admin/v1 (admin token), the hosted
// opt-in landing page /l/o/{code}, the SMS provider's callbacks under
// /webhooks/sms, and the internal routes other services call through
// optin-svc/client under /internal/v1. Handlers decode, call a use case and
// render; errors.go maps domain errors to the envelope in one place.
package httpapi

import (
	"log/slog"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/optin-svc/internal/app"
)

// Abilities of the public routes (spec sections 4 and 5).
const (
	AbilityViewAnySuppression = "api:view-any-suppression"
	AbilityCreateSuppression  = "api:create-suppression"
	AbilityDeleteSuppression  = "api:delete-suppression"
	AbilityViewAnyOptInCode   = "api:view-any-opt-in-code"
)

// Deps are what the routes need.
type Deps struct {
	App *app.App
	// Verifier checks the internal JWT of API and internal requests.
	Verifier *authz.Verifier
	// Pool holds the idempotency keys (idempotency.Wrap).
	Pool *pgxpool.Pool
	// AdminToken opens the operator plane.
	AdminToken string
	// SMSAuthToken verifies the SMS provider's signatures.
	SMSAuthToken string
	// PublicBaseURL is the public scheme and host (no trailing slash).
	PublicBaseURL string
	// Region names the deployment's default region on the landing page.
	Region string
	Log    *slog.Logger
}

// InboundPath receives the SMS people send to the sender numbers.
const InboundPath = "/webhooks/sms/inbound"

// Handlers serves the routes on the use cases.
type Handlers struct {
	app *app.App
}

// Register mounts every route on r.
func Register(r fiber.Router, d Deps) {
	h := &Handlers{app: d.App}
	idem := func(h idempotency.Handler) fiber.Handler { return idempotency.Wrap(d.Pool, h) }
	gate := authz.Require

	api := r.Group("/api/v1", authz.Middleware(d.Verifier))
	api.Get("/suppression-list", gate(AbilityViewAnySuppression), h.listSuppressions)
	api.Post("/suppression-list", gate(AbilityCreateSuppression), idem(h.createSuppression))
	api.Delete("/suppression-list/:contactPhone", gate(AbilityDeleteSuppression), h.deleteSuppression)

	viewCodes := gate(AbilityViewAnyOptInCode)
	api.Get("/opt-in-codes", optInEnabled, viewCodes, h.listCodes)
	api.Get("/opt-in-codes/:optInCode", optInEnabled, viewCodes, h.showCode)
	api.Get("/opt-ins", optInEnabled, viewCodes, h.listConsents)

	// Internal routes other services call with the internal token of the
	// tenant they act for; the gateway never routes /internal.
	internal := r.Group("/internal/v1", authz.Middleware(d.Verifier))
	internal.Get("/contacts/:contact/opt-in", h.contactOptIn)
	h.dashboardRoutes(internal, idem)

	admin := r.Group("/admin/v1/tenants/:tenant", requireAdmin(d.AdminToken))
	admin.Get("/messages", h.listMessages)
	admin.Post("/opt-in-codes", h.createCode)

	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lp := &landing{app: d.App, secure: strings.HasPrefix(d.PublicBaseURL, "https://"), region: d.Region, log: log}
	r.Get("/l/o/:code", lp.show)
	// FormValue would inflate a gzip multipart post without bound.
	r.Post("/l/o/:code", httpx.RefuseEncoded, lp.submit)

	cb := &callbacks{app: d.App, authToken: d.SMSAuthToken, publicBaseURL: d.PublicBaseURL, log: log}
	r.Post(app.StatusCallbackPath, cb.status)
	r.Post(InboundPath, cb.inbound)
}

// scope is who an API request acts for.
func scope(c *fiber.Ctx) app.Scope {
	claims := authz.ClaimsFrom(c)
	token, _ := strings.CutPrefix(strings.TrimSpace(c.Get(fiber.HeaderAuthorization)), "Bearer ")
	return app.Scope{
		TenantID:  claims.TenantID,
		Region:    claims.Region,
		Token:     strings.Clone(strings.TrimSpace(token)),
		RequestID: reqid.From(c.UserContext()),
	}
}

// appPage converts the parsed page to the use cases' terms.
func appPage(p httpx.Page) app.Page {
	return app.Page{Limit: p.PerPage, Offset: p.Offset()}
}
