package httpx

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/reqid"
)

// RequestID returns the middleware that gives every request its id: the
// client's X-Request-Id when reqid.Valid accepts it, else a new ULID. The id
// is set on the response, on the request (for anything forwarded) and on
// c.UserContext() through reqid.With.
func RequestID() fiber.Handler {
	return func(c *fiber.Ctx) error {
		assignRequestID(c)
		return c.Next()
	}
}

func assignRequestID(c *fiber.Ctx) {
	// Fiber's strings point into a buffer reused after the request: copy
	// before the id escapes into a context that may outlive it.
	id := cloneString(reqid.Resolve(c.Get(reqid.Header)))
	c.Set(reqid.Header, id)
	c.Request().Header.Set(reqid.Header, id)
	c.SetUserContext(reqid.With(c.UserContext(), id))
}

func cloneString(s string) string { return strings.Clone(s) }
