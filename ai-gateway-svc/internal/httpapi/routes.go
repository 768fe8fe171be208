// Package httpapi is ai-gateway-svc's HTTP surface: the AI gateway routes
// under /api/v1/gateway. Every route needs an internal token and the
// tenant's ai_gateway flag (403 forbidden without it, before anything
// else); each then applies its ability gate. Handlers return errors unmapped:
// peerErrors (errors.go) maps the peers' failures in one place.
package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
)

// Abilities of the routes (libs/authz's catalogue).
const (
	AbilityViewAnyContact = "api:view-any-contact"
	AbilityCreateContact  = "api:create-contact"
)

// Directions of a transaction.
const (
	receivable = "receivable"
	payable    = "payable"
)

// Handlers serves the routes on the use cases.
type Handlers struct {
	app *app.App
}

// Register mounts the routes on r behind the internal-token middleware
// and the ai_gateway flag.
func Register(r fiber.Router, a *app.App, v *authz.Verifier) {
	h := &Handlers{app: a}
	g := r.Group("/api/v1/gateway", authz.Middleware(v), requireFlag, passReplay, peerErrors)
	g.Post("/resolve-contact", authz.Require(AbilityViewAnyContact), h.resolveContact)
	g.Post("/contacts", authz.Require(AbilityCreateContact), h.createContact)
	g.Post("/transactions/prepare", h.prepare)
	g.Post("/transactions/:transaction/confirm", h.confirm)
	g.Get("/transactions/:reference/status", h.status)
}

// requireFlag answers 403 forbidden when the tenant's ai_gateway flag is off.
func requireFlag(c *fiber.Ctx) error {
	claims := authz.ClaimsFrom(c)
	if claims == nil {
		return apierr.Unauthenticated()
	}
	if !claims.Flags.AIGateway {
		e := apierr.Forbidden()
		e.Message = "The AI gateway is not enabled for this tenant."
		return e
	}
	return c.Next()
}

// passReplay tells the caller, as the owning service told the gateway,
// that an answer under a forwarded Idempotency-Key is a replay:
// Idempotent-Replayed and Original-Request-Id, on success and error alike.
func passReplay(c *fiber.Ctx) error {
	ctx, fwd := idempotency.WithForwarded(c.UserContext())
	c.SetUserContext(ctx)
	err := c.Next()
	if fwd.Replayed {
		c.Set(idempotency.HeaderReplayed, "true")
		c.Set(idempotency.HeaderOriginalRequestID, fwd.OriginalRequestID)
	}
	return err
}

// validDirection reports whether d is receivable or payable.
func validDirection(d string) bool { return d == receivable || d == payable }

// bearer is the caller's internal token, forwarded to the peers.
func bearer(c *fiber.Ctx) string {
	tok, _ := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	return strings.Clone(tok)
}

// idemKey is the caller's Idempotency-Key, forwarded to the owning service.
func idemKey(c *fiber.Ctx) string { return strings.Clone(c.Get("Idempotency-Key")) }
