package authz

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
)

type claimsKey struct{}

// Middleware returns the handler that authenticates the internal token in
// "Authorization: Bearer <jwt>": 401 unauthenticated when it is missing or
// invalid, 503 service_unavailable when the signing keys cannot be fetched.
// On success the claims are available through ClaimsFrom and, on
// c.UserContext(), through FromContext.
func Middleware(v *Verifier) fiber.Handler {
	return func(c *fiber.Ctx) error {
		token, ok := bearer(c.Get(fiber.HeaderAuthorization))
		if !ok {
			return apierr.Unauthenticated()
		}
		claims, err := v.Verify(c.UserContext(), token)
		if errors.Is(err, ErrKeysUnavailable) {
			e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, "Authentication is temporarily unavailable.")
			e.RetryAfter = 1
			return e
		}
		if err != nil {
			return apierr.Unauthenticated()
		}
		c.Locals(claimsKey{}, claims)
		obs.SetTenant(c, claims.TenantID)
		c.SetUserContext(WithToken(WithClaims(c.UserContext(), claims), token))
		return c.Next()
	}
}

// bearer extracts the token of a Bearer authorization header (the scheme
// is case-insensitive).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// ClaimsFrom returns the claims Middleware stored, or nil.
func ClaimsFrom(c *fiber.Ctx) *Claims {
	claims, _ := c.Locals(claimsKey{}).(*Claims)
	return claims
}

// WithClaims returns a context carrying the claims (for use cases called
// outside Fiber, such as workers acting for a tenant).
func WithClaims(ctx context.Context, c *Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

type tokenKey struct{}

// WithToken returns a context carrying the verified internal token itself,
// so a use case can pass it on to another service's client on behalf of the
// same tenant and caller.
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// TokenFrom returns the internal token carried by ctx, or "".
func TokenFrom(ctx context.Context) string {
	t, _ := ctx.Value(tokenKey{}).(string)
	return t
}

// FromContext returns the claims carried by ctx, or nil.
func FromContext(ctx context.Context) *Claims {
	c, _ := ctx.Value(claimsKey{}).(*Claims)
	return c
}

// Require returns the policy gate for ability: 401 without claims, 403
// forbidden when the claims lack the ability.
func Require(ability string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := Check(c, ability); err != nil {
			return err
		}
		return c.Next()
	}
}

// Check is Require inside a handler: nil when the request's claims hold
// ability, else the 401 or 403 error to return.
func Check(c *fiber.Ctx, ability string) error {
	claims := ClaimsFrom(c)
	if claims == nil {
		return apierr.Unauthenticated()
	}
	if !claims.Has(ability) {
		return apierr.Forbidden()
	}
	return nil
}
