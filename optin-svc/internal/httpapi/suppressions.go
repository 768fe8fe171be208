package httpapi

import (
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/wire"
)

// Default page size of the suppression list (contract section 2).
const suppressionsPerPage = 25

type suppressionBody struct {
	ContactPhoneID string `json:"contact_phone_id"`
	Reason         string `json:"reason"`
	Channel        string `json:"channel"`
}

// listSuppressions answers GET /api/v1/suppression-list?channel=&page=&per_page=.
func (h *Handlers) listSuppressions(c *fiber.Ctx) error {
	channel, err := channelQuery(c)
	if err != nil {
		return err
	}
	page, err := httpx.ParsePage(c, suppressionsPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListSuppressions(c.UserContext(), scope(c), channel, appPage(page))
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewSuppressions(list), page, total)
}

// createSuppression answers POST /api/v1/suppression-list: 201 with a new
// entry, 200 with the entry already there.
func (h *Handlers) createSuppression(c *fiber.Ctx, tx idempotency.Tx) error {
	var body suppressionBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	entry, created, err := h.app.AddSuppression(c.UserContext(), scope(c).WithTx(tx), app.SuppressionInput(body))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return httpx.Data(c, status, wire.NewSuppression(entry))
}

// deleteSuppression answers DELETE /api/v1/suppression-list/{contactPhone}?channel=.
func (h *Handlers) deleteSuppression(c *fiber.Ctx) error {
	channel, err := channelQuery(c)
	if err != nil {
		return err
	}
	number, err := url.PathUnescape(c.Params("contactPhone"))
	if err != nil || httpx.CheckText("contactPhone", []byte(number)) != nil {
		return apierr.NotFound() // no entry can have such a number
	}
	if err := h.app.DeleteSuppression(c.UserContext(), scope(c), number, channel); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

// channelQuery reads the channel query parameter (app.ParseChannel).
func channelQuery(c *fiber.Ctx) (string, error) {
	v, ok, err := httpx.QueryValue(c, "channel")
	if err != nil {
		return "", err
	}
	return app.ParseChannel(v, ok)
}
