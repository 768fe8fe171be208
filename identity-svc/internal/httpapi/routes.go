// Package httpapi is identity-svc's HTTP surface: the internal routes the
// gateway calls (introspection, JWKS), the service-to-service routes
// (service tokens, tenant lookups) and the operator plane (/admin/v1).
// Handlers decode, call the use cases and render; errors.go maps domain
// errors to the envelope in one place.
package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/identity-svc/internal/app"
)

// Handlers serves the routes on the use cases.
type Handlers struct {
	app  *app.App
	jwks []byte
}

// Register mounts every route on r: /internal/v1 (introspect and jwks for
// the gateway; service tokens and tenant lookups behind the service secret,
// absent without one) and /admin/v1 behind the admin token.
func Register(r fiber.Router, a *app.App, jwks []byte, adminToken, serviceSecret string) {
	h := &Handlers{app: a, jwks: jwks}

	internal := r.Group("/internal/v1")
	internal.Post("/introspect", h.introspect)
	internal.Get("/jwks", h.getJWKS)
	service := RequireService(serviceSecret)
	internal.Post("/service-tokens", service, h.issueServiceToken)
	internal.Get("/tenants", service, h.tenantBySMSNumber)
	internal.Get("/tenants/:tenant", service, h.internalTenant)
	internal.Post("/sign-in", service, h.signIn)
	internal.Post("/set-password", service, h.setPassword)
	internal.Get("/tenants/:tenant/roles", service, h.listRoles)
	internal.Get("/tenants/:tenant/users", service, h.listUsers)
	internal.Get("/tenants/:tenant/users/:user", service, h.getUser)
	internal.Post("/tenants/:tenant/users/:user/password", service, h.changePassword)
	internal.Post("/tenants/:tenant/users/:user/internal-token", service, h.userToken)
	internal.Post("/tenants/:tenant/users/:user/tokens", service, h.createUserToken)
	internal.Post("/tenants/:tenant/users/:user/invitations", service, h.inviteAs)
	internal.Post("/tenants/:tenant/users/:user/disable", service, h.disableUserAs)
	internal.Post("/tenants/:tenant/roles", service, h.createRoleAs)
	internal.Put("/tenants/:tenant/roles/:role", service, h.updateRoleAs)
	internal.Get("/tenants/:tenant/tokens", service, h.listTokens)
	internal.Delete("/tenants/:tenant/tokens/:id", service, h.revokeToken)

	admin := r.Group("/admin/v1", RequireAdmin(adminToken))
	admin.Post("/tenants", h.createTenant)
	admin.Get("/tenants", h.listTenants)
	admin.Get("/tenants/:tenant", h.getTenant)
	admin.Patch("/tenants/:tenant", h.updateTenant)
	admin.Post("/tenants/:tenant/tokens", h.createToken)
	admin.Get("/tenants/:tenant/tokens", h.listTokens)
	admin.Delete("/tenants/:tenant/tokens/:id", h.revokeToken)
	admin.Post("/tenants/:tenant/users", h.createUser)
	admin.Get("/tenants/:tenant/users", h.listUsers)
	admin.Post("/tenants/:tenant/users/:user/disable", h.disableUser)
}
