package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/optin-svc/internal/wire"
)

// contactOptIn answers GET /internal/v1/contacts/{contact}/opt-in?phone=+E164:
// the contact's opt-in status and consents, for contacts-svc's single read
// (through optin-svc/client). It carries no ability gate: the caller
// forwards the internal token of the request it serves, and has checked
// its own ability.
func (h *Handlers) contactOptIn(c *fiber.Ctx) error {
	number, err := httpx.Query(c, "phone")
	if err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(number, " "); ok {
		number = "+" + rest // a '+' sent unencoded in a query arrives as a space
	}
	got, err := h.app.ContactOptIn(c.UserContext(), scope(c), strings.Clone(c.Params("contact")), number)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.ContactOptIn{Status: got.Status, Consents: wire.NewConsents(got.Consents)})
}
