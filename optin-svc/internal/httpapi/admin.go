package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/wire"
)

// messagesPerPage is the default page size of the admin message list.
const messagesPerPage = 25

// requireAdmin lets a request through only with `Authorization: Bearer
// <admin token>`, compared over SHA-256 digests in constant time; an empty
// admin token admits nobody.
func requireAdmin(adminToken string) fiber.Handler {
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

// adminTenant returns the {tenant} path parameter; an id that is not a
// ULID names no tenant.
func adminTenant(c *fiber.Ctx) (string, error) {
	id := c.Params("tenant")
	if !ids.Valid(id) {
		return "", apierr.NotFound()
	}
	return strings.Clone(id), nil
}

// listMessages answers GET /admin/v1/tenants/{tenant}/messages?to=+E164:
// the tenant's SMS, newest first, with their text (the sink's outbox).
func (h *Handlers) listMessages(c *fiber.Ctx) error {
	tenant, err := adminTenant(c)
	if err != nil {
		return err
	}
	page, err := httpx.ParsePage(c, messagesPerPage)
	if err != nil {
		return err
	}
	to, err := httpx.Query(c, "to")
	if err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(to, " "); ok {
		to = "+" + rest // a '+' sent unencoded in a query arrives as a space
	}
	list, total, err := h.app.ListMessages(c.UserContext(), tenant, to, appPage(page))
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewMessages(list), page, total)
}
