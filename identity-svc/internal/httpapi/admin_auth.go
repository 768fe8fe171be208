package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// RequireAdmin returns the middleware that lets a request through only with
// `Authorization: Bearer <admin token>`. The comparison is over SHA-256
// digests in constant time, so neither the content nor the length of the
// token leaks through timing. An empty admin token admits nobody.
func RequireAdmin(adminToken string) fiber.Handler {
	want := sha256.Sum256([]byte(adminToken))
	return func(c *fiber.Ctx) error {
		presented, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(presented)))
		if !ok || adminToken == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return apierr.Unauthenticated()
		}
		return c.Next()
	}
}
