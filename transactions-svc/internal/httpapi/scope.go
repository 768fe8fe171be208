package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/transactions-svc/internal/app"
)

// scope is who the request acts for: the tenant and its default currency
// and region from the internal token, and the token itself, passed on to
// contacts-svc.
func scope(c *fiber.Ctx) app.Scope {
	claims := authz.ClaimsFrom(c)
	s := app.Scope{}
	if claims != nil {
		s.TenantID, s.Currency, s.Region = claims.TenantID, claims.Currency, claims.Region
		if l := claims.Limits.AIMaxAmount; l != nil {
			s.AIMaxAmount = *l
		}
		if l := claims.Limits.AIDailyAmount; l != nil {
			s.AIDailyAmount = *l
		}
	}
	if _, token, ok := strings.Cut(c.Get(fiber.HeaderAuthorization), " "); ok {
		s.Token = strings.Clone(strings.TrimSpace(token))
	}
	return s
}
