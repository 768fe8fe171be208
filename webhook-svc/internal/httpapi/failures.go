package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/wire"
)

// recentFailures answers GET /internal/v1/webhook-deliveries/failing?limit=N:
// the tenant's latest failed deliveries across its endpoints (the
// dashboard's overview), gated like the endpoints list.
func (h *Handlers) recentFailures(c *fiber.Ctx) error {
	raw, err := httpx.Query(c, "limit")
	if err != nil {
		return err
	}
	limit := 5
	if raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > app.MaxRecentFailures {
			return apierr.Field("limit", "The limit field must be an integer between 1 and "+strconv.Itoa(app.MaxRecentFailures)+".")
		}
		limit = n
	}
	list, err := h.app.RecentFailures(c.UserContext(), tenant(c), limit)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.Failures(list))
}
