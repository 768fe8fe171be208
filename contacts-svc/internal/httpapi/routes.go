// Package httpapi is contacts-svc's HTTP surface: the public routes the
// gateway forwards under /api/v1 (contacts and contact field definitions,
// each behind its ability) and the internal routes other services call
// through contacts-svc/client under /internal/v1. Handlers decode, call a
// use case and render; errors.go maps domain errors to the envelope in one
// place.
package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
)

// Abilities of the public routes (spec section 5).
const (
	AbilityViewAnyContact    = "api:view-any-contact"
	AbilityViewContact       = "api:view-contact"
	AbilityCreateContact     = "api:create-contact"
	AbilityUpdateContact     = "api:update-contact"
	AbilityDeleteContact     = "api:delete-contact"
	AbilityRestoreContact    = "api:restore-contact"
	AbilityViewAnyDefinition = "api:view-any-contact-field-definition"
	AbilityViewDefinition    = "api:view-contact-field-definition"
	AbilityCreateDefinition  = "api:create-contact-field-definition"
	AbilityUpdateDefinition  = "api:update-contact-field-definition"
	AbilityDeleteDefinition  = "api:delete-contact-field-definition"
)

// Deps are what the routes need.
type Deps struct {
	App *app.App
	// Verifier checks the internal JWT of every request.
	Verifier *authz.Verifier
	// Pool holds the idempotency keys (idempotency.Wrap).
	Pool *pgxpool.Pool
	// Region reads national phone numbers of tenants whose internal token
	// carries no region of its own.
	Region string
}

// Handlers serves the routes on the use cases.
type Handlers struct {
	app    *app.App
	region string
}

// Register mounts every route on r.
func Register(r fiber.Router, d Deps) {
	h := &Handlers{app: d.App, region: d.Region}
	// Every write handler here acts on the transaction alone, so the key's
	// lookup may travel with the write's first statement, and a write whose
	// statements need no answer (a contact create) commits in one round trip
	// (idempotency.Wrap).
	idem := func(h idempotency.Handler) fiber.Handler { return idempotency.Wrap(d.Pool, h, idempotency.Speculate()) }
	gate := authz.Require

	api := r.Group("/api/v1", authz.Middleware(d.Verifier))
	api.Get("/contacts", gate(AbilityViewAnyContact), h.listContacts)
	api.Post("/contacts", gate(AbilityCreateContact), idem(h.createContact))
	api.Get("/contacts/:contact", gate(AbilityViewContact), h.showContact)
	api.Put("/contacts/:contact", gate(AbilityUpdateContact), idem(h.replaceContact))
	api.Patch("/contacts/:contact", gate(AbilityUpdateContact), idem(h.patchContact))
	api.Delete("/contacts/:contact", gate(AbilityDeleteContact), h.deleteContact)
	api.Post("/contacts/:contact/restore", gate(AbilityRestoreContact), idem(h.restoreContact))

	api.Get("/contact-field-definitions", gate(AbilityViewAnyDefinition), h.listDefinitions)
	api.Post("/contact-field-definitions", gate(AbilityCreateDefinition), idem(h.createDefinition))
	api.Get("/contact-field-definitions/:definition", gate(AbilityViewDefinition), h.showDefinition)
	api.Put("/contact-field-definitions/:definition", gate(AbilityUpdateDefinition), idem(h.replaceDefinition))
	api.Delete("/contact-field-definitions/:definition", gate(AbilityDeleteDefinition), h.deleteDefinition)

	// Internal routes: the caller forwards the internal token of the tenant
	// it acts for. They carry no ability gate: the calling service applies
	// its own (a receivable create resolves its contact with
	// api:create-receivable only). The gateway never routes /internal.
	internal := r.Group("/internal/v1", authz.Middleware(d.Verifier))
	internal.Get("/contacts/search", h.searchContacts)
	internal.Get("/contacts/by-id", h.contactsByID)
	internal.Get("/contacts/:contact", h.lookupContact)
	internal.Post("/contacts/find-or-create", idem(h.findOrCreate))
	internal.Post("/contacts/bulk-upsert", idem(h.bulkUpsert))
	internal.Get("/phones/:phone", h.lookupPhone)
}

// scope is who the request acts for: the tenant, and its default region
// for national phone formats.
func (h *Handlers) scope(c *fiber.Ctx) app.Scope {
	claims := authz.ClaimsFrom(c)
	region := claims.Region
	if region == "" {
		region = h.region
	}
	return app.Scope{TenantID: claims.TenantID, Region: region}
}
