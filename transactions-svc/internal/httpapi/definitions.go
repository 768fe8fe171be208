package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

func (h *Handlers) listDefinitions(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListDefinitions(c.UserContext(), scope(c), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	out := make([]wire.Definition, len(list))
	for i, d := range list {
		out[i] = wire.NewDefinition(d)
	}
	return httpx.Collection(c, out, page, listtotal.Exact(total))
}

func (h *Handlers) createDefinition(c *fiber.Ctx, tx idempotency.Tx) error {
	var body definitionBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	d, err := h.app.CreateDefinition(c.UserContext(), scope(c).WithTx(tx), body.input())
	return definitionAnswer(c, http.StatusCreated, d, err)
}

func (h *Handlers) showDefinition(c *fiber.Ctx) error {
	d, err := h.app.GetDefinition(c.UserContext(), scope(c), c.Params("id"))
	return definitionAnswer(c, http.StatusOK, d, err)
}

func (h *Handlers) replaceDefinition(c *fiber.Ctx, tx idempotency.Tx) error {
	var body replaceDefinitionBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	d, err := h.app.ReplaceDefinition(c.UserContext(), scope(c).WithTx(tx), strings.Clone(c.Params("id")), body.input())
	return definitionAnswer(c, http.StatusOK, d, err)
}

func (h *Handlers) deleteDefinition(c *fiber.Ctx) error {
	if err := h.app.DeleteDefinition(c.UserContext(), scope(c), c.Params("id")); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

func definitionAnswer(c *fiber.Ctx, status int, d fielddef.Definition, err error) error {
	if err != nil {
		return err
	}
	return httpx.Data(c, status, wire.NewDefinition(d))
}
