// Package httpapi is ai-gateway-svc's HTTP surface: the AI gateway routes
// under /api/v1/gateway. Every route needs an internal token and the
// tenant's ai_gateway flag (403 forbidden without it, before anything
// else); each then runs its operation (internal/app: ability gate, input
// rules, the peers' errors in the envelope's terms). The MCP endpoint is
// served here too, through Bridge.
package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
)

// Handlers serves the routes on the use cases.
type Handlers struct {
	app *app.App
}

// Register mounts the routes on r behind the internal-token middleware
// and the ai_gateway flag; mcp, when not nil, serves the MCP endpoint
// (/api/v1/gateway/mcp: POST, GET for the event stream, DELETE) behind the
// same two.
func Register(r fiber.Router, a *app.App, v *authz.Verifier, mcp http.Handler) {
	h := &Handlers{app: a}
	g := r.Group("/api/v1/gateway", authz.Middleware(v), requireFlag, passReplay)
	if mcp != nil {
		bridge := Bridge(mcp)
		for _, method := range []string{fiber.MethodPost, fiber.MethodGet, fiber.MethodDelete} {
			g.Add(method, "/mcp", requireAny(app.ToolAbilities()), mcpHeaders, bridge)
		}
	}
	g.Post("/resolve-contact", authz.Require(app.AbilityViewAnyContact), h.resolveContact)
	g.Post("/contacts", authz.Require(app.AbilityCreateContact), h.createContact)
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

// requireAny answers 403 forbidden to a token that holds none of the
// abilities: a session it opened could only fail every tool call.
func requireAny(abilities []string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		claims := authz.ClaimsFrom(c)
		for _, a := range abilities {
			if claims.Has(a) {
				return c.Next()
			}
		}
		return apierr.Forbidden()
	}
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

// bearer is the caller's internal token, forwarded to the peers.
func bearer(c *fiber.Ctx) string {
	tok, _ := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	return strings.Clone(tok)
}

// caller is who the request acts for.
func caller(c *fiber.Ctx) app.Caller {
	return app.Caller{Claims: authz.ClaimsFrom(c), Token: bearer(c)}
}

// idemKey is the caller's Idempotency-Key, forwarded to the owning service.
func idemKey(c *fiber.Ctx) string { return strings.Clone(c.Get("Idempotency-Key")) }
