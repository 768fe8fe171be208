package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"github.com/paylane/paylane/webhook-svc/internal/wire"
)

// updateBody is the body of PUT and PATCH: the mutable fields, plus the
// read-only fields of the resource, accepted and ignored (contract section
// 2) so a client may send back what it read.
type updateBody struct {
	webhook.Input
	ID                  json.RawMessage `json:"id"`
	ConsecutiveFailures json.RawMessage `json:"consecutive_failures"`
	LastSucceededAt     json.RawMessage `json:"last_succeeded_at"`
	LastFailedAt        json.RawMessage `json:"last_failed_at"`
	DisabledAt          json.RawMessage `json:"disabled_at"`
	CreatedAt           json.RawMessage `json:"created_at"`
	UpdatedAt           json.RawMessage `json:"updated_at"`
}

// list answers GET /webhook-endpoints.
func (h *Handlers) list(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, endpointsPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListEndpoints(c.UserContext(), tenant(c), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.Endpoints(list), page, listtotal.Exact(total))
}

// create answers POST /webhook-endpoints: 201 with the signing secret.
func (h *Handlers) create(c *fiber.Ctx) error {
	var in webhook.Input
	if err := httpx.Decode(c, &in); err != nil {
		return err
	}
	return h.withSecret(c, http.StatusCreated, func(c *fiber.Ctx, tx idempotency.Tx) (webhook.WithSecret, error) {
		return h.app.CreateEndpoint(c.UserContext(), tx, tenant(c), in)
	})
}

// show answers GET /webhook-endpoints/{endpoint}.
func (h *Handlers) show(c *fiber.Ctx) error {
	e, err := h.app.GetEndpoint(c.UserContext(), tenant(c), c.Params("endpoint"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewEndpoint(e))
}

// replace answers PUT /webhook-endpoints/{endpoint}.
func (h *Handlers) replace(c *fiber.Ctx, tx idempotency.Tx) error {
	return h.update(c, tx, webhook.Replace)
}

// patch answers PATCH /webhook-endpoints/{endpoint}.
func (h *Handlers) patch(c *fiber.Ctx, tx idempotency.Tx) error {
	return h.update(c, tx, webhook.Patch)
}

func (h *Handlers) update(c *fiber.Ctx, tx idempotency.Tx, mode webhook.Mode) error {
	var body updateBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	e, err := h.app.UpdateEndpoint(c.UserContext(), tx, tenant(c), c.Params("endpoint"), body.Input, mode)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewEndpoint(e))
}

// remove answers DELETE /webhook-endpoints/{endpoint}: 204.
func (h *Handlers) remove(c *fiber.Ctx) error {
	if err := h.app.DeleteEndpoint(c.UserContext(), tenant(c), c.Params("endpoint")); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

// rotate answers POST /webhook-endpoints/{endpoint}/rotate-secret: 200 with
// the new secret.
func (h *Handlers) rotate(c *fiber.Ctx) error {
	var empty struct{}
	if err := httpx.Decode(c, &empty); err != nil {
		return err
	}
	return h.withSecret(c, http.StatusOK, func(c *fiber.Ctx, tx idempotency.Tx) (webhook.WithSecret, error) {
		return h.app.RotateSecret(c.UserContext(), tx, tenant(c), c.Params("endpoint"))
	})
}

// deliveries answers GET /webhook-endpoints/{endpoint}/deliveries.
func (h *Handlers) deliveries(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, deliveriesPerPage)
	if err != nil {
		return err
	}
	q := httpx.Queries(c)
	f := app.DeliveryFilter{Status: q.Text("status"), EventType: q.Text("event_type")}
	if err := q.Err(); err != nil {
		return err
	}
	list, total, err := h.app.ListDeliveries(c.UserContext(), tenant(c), c.Params("endpoint"), f,
		app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.Deliveries(list), page, total)
}
