// Package httpapi is webhook-svc's HTTP surface: /api/v1/webhook-endpoints,
// and /internal/v1/webhook-deliveries/failing for the dashboard.
// Handlers decode, call the use cases and render; errors.go maps domain
// errors to the envelope in one place.
package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/app"
)

// Abilities of the routes (spec section 5); rotate-secret needs update.
const (
	AbilityViewAny = "api:view-any-webhook"
	AbilityView    = "api:view-webhook"
	AbilityCreate  = "api:create-webhook"
	AbilityUpdate  = "api:update-webhook"
	AbilityDelete  = "api:delete-webhook"
)

// Page sizes (contract section 2).
const (
	endpointsPerPage  = 15
	deliveriesPerPage = 25
)

// Handlers serves the routes on the use cases.
type Handlers struct {
	app  *app.App
	pool *pgxpool.Pool
}

// Register mounts the routes on r behind the internal-token middleware.
// pool runs the Idempotency-Key transactions.
func Register(r fiber.Router, a *app.App, pool *pgxpool.Pool, v *authz.Verifier) {
	h := &Handlers{app: a, pool: pool}
	g := r.Group("/api/v1/webhook-endpoints", authz.Middleware(v))
	g.Get("", authz.Require(AbilityViewAny), h.list)
	g.Post("", authz.Require(AbilityCreate), h.create)
	g.Get("/:endpoint", authz.Require(AbilityView), h.show)
	g.Put("/:endpoint", authz.Require(AbilityUpdate), idempotency.Wrap(pool, h.replace))
	g.Patch("/:endpoint", authz.Require(AbilityUpdate), idempotency.Wrap(pool, h.patch))
	g.Delete("/:endpoint", authz.Require(AbilityDelete), h.remove)
	g.Post("/:endpoint/rotate-secret", authz.Require(AbilityUpdate), h.rotate)
	g.Get("/:endpoint/deliveries", authz.Require(AbilityView), h.deliveries)

	internal := r.Group("/internal/v1", authz.Middleware(v))
	internal.Get("/webhook-deliveries/failing", authz.Require(AbilityViewAny), h.recentFailures)
}

// tenant is the tenant of the request (the middleware guarantees claims).
func tenant(c *fiber.Ctx) string { return authz.ClaimsFrom(c).TenantID }
