package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/wire"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
)

// definitionBody is the body of POST /contact-field-definitions.
type definitionBody struct {
	Key      *string  `json:"key"`
	Label    *string  `json:"label"`
	Type     *string  `json:"type"`
	Options  []string `json:"options"`
	Required *bool    `json:"required"`
}

func (b definitionBody) input() contact.DefinitionInput {
	return contact.DefinitionInput{Key: b.Key, Label: b.Label, Type: b.Type, Options: b.Options, Required: b.Required}
}

// replaceDefinitionBody is the body of PUT: the same fields, plus the
// read-only ones, which are ignored.
type replaceDefinitionBody struct {
	definitionBody
	ID        json.RawMessage `json:"id"`
	CreatedAt json.RawMessage `json:"created_at"`
	UpdatedAt json.RawMessage `json:"updated_at"`
}

// listDefinitions answers GET /api/v1/contact-field-definitions.
func (h *Handlers) listDefinitions(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListDefinitions(c.UserContext(), h.scope(c), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewDefinitions(list), page, listtotal.Exact(total))
}

// createDefinition answers POST /api/v1/contact-field-definitions.
func (h *Handlers) createDefinition(c *fiber.Ctx, tx idempotency.Tx) error {
	var body definitionBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	d, err := h.app.CreateDefinition(c.UserContext(), h.scope(c).WithTx(tx), body.input())
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewDefinition(d))
}

// showDefinition answers GET /api/v1/contact-field-definitions/{definition}.
func (h *Handlers) showDefinition(c *fiber.Ctx) error {
	d, err := h.app.GetDefinition(c.UserContext(), h.scope(c), c.Params("definition"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewDefinition(d))
}

// replaceDefinition answers PUT /api/v1/contact-field-definitions/{definition}.
func (h *Handlers) replaceDefinition(c *fiber.Ctx, tx idempotency.Tx) error {
	var body replaceDefinitionBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	d, err := h.app.ReplaceDefinition(c.UserContext(), h.scope(c).WithTx(tx), c.Params("definition"), body.input())
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewDefinition(d))
}

// deleteDefinition answers DELETE /api/v1/contact-field-definitions/{definition}.
func (h *Handlers) deleteDefinition(c *fiber.Ctx) error {
	if err := h.app.DeleteDefinition(c.UserContext(), h.scope(c), c.Params("definition")); err != nil {
		return err
	}
	return httpx.NoContent(c)
}
