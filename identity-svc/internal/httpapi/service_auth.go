package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// RequireService returns the middleware of the service-to-service routes:
// a request passes only with `Authorization: Bearer <service secret>`,
// compared like the admin token (SHA-256 digests, constant time); anything
// else is 401. Without a service secret the routes do not exist: 404
// route_not_found, so a deployment that never configured one exposes
// nothing.
func RequireService(serviceSecret string) fiber.Handler {
	want := sha256.Sum256([]byte(serviceSecret))
	return func(c *fiber.Ctx) error {
		if serviceSecret == "" {
			return apierr.RouteNotFound()
		}
		presented, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(presented)))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return apierr.Unauthenticated()
		}
		return c.Next()
	}
}
