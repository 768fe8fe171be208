package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
)

// defaultPerPage is the page size of contacts and definitions (contract section 2).
const defaultPerPage = 25

// listContacts answers GET /api/v1/contacts?phone=&external_id=&with_trashed=1.
func (h *Handlers) listContacts(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, defaultPerPage)
	if err != nil {
		return err
	}
	trashed, err := withTrashed(c)
	if err != nil {
		return err
	}
	qr := httpx.Queries(c)
	q := app.ListQuery{
		Phone: phoneQuery(qr), ExternalID: qr.Text("external_id"), WithTrashed: trashed,
		Page: app.Page{Limit: page.PerPage, Offset: page.Offset()},
	}
	if err := qr.Err(); err != nil {
		return err
	}
	list, total, err := h.app.ListContacts(c.UserContext(), h.scope(c), q)
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewContacts(list, trashed), page, total)
}

// createContact answers POST /api/v1/contacts.
func (h *Handlers) createContact(c *fiber.Ctx, tx idempotency.Tx) error {
	var body contactBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, err := h.app.CreateContact(c.UserContext(), h.scope(c).WithTx(tx), body.input())
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewContact(ct, false))
}

// showContact answers GET /api/v1/contacts/{contact}[?with_trashed=1]: the
// single read, with opt_in_status and consents.
func (h *Handlers) showContact(c *fiber.Ctx) error {
	trashed, err := withTrashed(c)
	if err != nil {
		return err
	}
	ct, optIn, err := h.app.GetContact(c.UserContext(), h.scope(c), c.Params("contact"), trashed)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewContact(ct, trashed).WithOptIn(optIn))
}

// replaceContact answers PUT /api/v1/contacts/{contact}.
func (h *Handlers) replaceContact(c *fiber.Ctx, tx idempotency.Tx) error {
	var body replaceBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, err := h.app.ReplaceContact(c.UserContext(), h.scope(c).WithTx(tx), c.Params("contact"), body.input())
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewContact(ct, false))
}

// patchContact answers PATCH /api/v1/contacts/{contact}.
func (h *Handlers) patchContact(c *fiber.Ctx, tx idempotency.Tx) error {
	var body patchBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, err := h.app.PatchContact(c.UserContext(), h.scope(c).WithTx(tx), c.Params("contact"), body.patch())
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewContact(ct, false))
}

// deleteContact answers DELETE /api/v1/contacts/{contact} (soft delete).
func (h *Handlers) deleteContact(c *fiber.Ctx) error {
	if err := h.app.DeleteContact(c.UserContext(), h.scope(c), c.Params("contact")); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

// restoreContact answers POST /api/v1/contacts/{contact}/restore. Its body
// is {} or empty.
func (h *Handlers) restoreContact(c *fiber.Ctx, tx idempotency.Tx) error {
	var body struct{}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, err := h.app.RestoreContact(c.UserContext(), h.scope(c).WithTx(tx), c.Params("contact"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewContact(ct, false))
}

// withTrashed reads the with_trashed query parameter: 1/true or 0/false.
func withTrashed(c *fiber.Ctx) (bool, error) {
	v, err := httpx.Query(c, "with_trashed")
	if err != nil {
		return false, err
	}
	switch v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, apierr.Field("with_trashed", "The with trashed field must be 1 or 0.")
}

// phoneQuery reads the phone query parameter. A + left unencoded arrives as
// a space ("?phone=+4420..." reads " 4420..."); a leading space means
// nothing else in a number, so it is read as the + the client meant.
func phoneQuery(q *httpx.QueryReader) string {
	v := q.Text("phone")
	if trimmed := strings.TrimLeft(v, " "); trimmed != v && trimmed != "" {
		return "+" + trimmed
	}
	return v
}
