package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/ai-gateway-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
)

// resolveContact answers POST /api/v1/gateway/resolve-contact:
// 200 {data: {status, candidates}}.
func (h *Handlers) resolveContact(c *fiber.Ctx) error {
	var body app.ResolveInput
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	res, err := h.app.ResolveContact(c.UserContext(), caller(c), body)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewResolution(res))
}

// createContact answers POST /api/v1/gateway/contacts: 201 {data: contact}.
func (h *Handlers) createContact(c *fiber.Ctx) error {
	var body app.ContactInput
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, err := h.app.NewContact(c.UserContext(), caller(c), body, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewContact(ct))
}

// prepare answers POST /api/v1/gateway/transactions/prepare: 201 {data: draft}.
func (h *Handlers) prepare(c *fiber.Ctx) error {
	var body app.PrepareInput
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	d, err := h.app.PrepareDraft(c.UserContext(), caller(c), body, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewDraft(d))
}

// confirm answers POST /api/v1/gateway/transactions/{transaction}/confirm:
// 200 {data: {transaction_id, status}}.
func (h *Handlers) confirm(c *fiber.Ctx) error {
	var body struct {
		SendAt *string `json:"send_at"`
	}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	out, err := h.app.ConfirmDraft(c.UserContext(), caller(c), strings.Clone(c.Params("transaction")), body.SendAt, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.Confirmed{TransactionID: out.TransactionID, Status: out.Status})
}

// status answers GET /api/v1/gateway/transactions/{reference}/status.
func (h *Handlers) status(c *fiber.Ctx) error {
	st, err := h.app.TransactionStatus(c.UserContext(), caller(c), strings.Clone(c.Params("reference")))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, st)
}
