package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
)

// lookupContact answers GET /internal/v1/contacts/{contact}: the contact,
// live or soft-deleted, with deleted_at.
func (h *Handlers) lookupContact(c *fiber.Ctx) error {
	ct, err := h.app.LookupContact(c.UserContext(), h.scope(c), c.Params("contact"), true)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewContact(ct, true))
}

// contactsByID answers GET /internal/v1/contacts/by-id?ids=a,b,c: the
// tenant's contacts among at most 100 ids, live and soft-deleted, in no
// particular order; ids the tenant does not hold are left out.
func (h *Handlers) contactsByID(c *fiber.Ctx) error {
	qr := httpx.Queries(c)
	list := qr.IDs("ids", app.MaxContactsByID, "contact")
	if err := qr.Err(); err != nil {
		return err
	}
	found, err := h.app.ContactsByID(c.UserContext(), h.scope(c), list)
	if err != nil {
		return err
	}
	out := make([]wire.Contact, len(found))
	for i, ct := range found {
		out[i] = wire.NewContact(ct, true)
	}
	return httpx.Data(c, http.StatusOK, out)
}

// foundOrCreated is the answer of find-or-create.
type foundOrCreated struct {
	Contact wire.Contact `json:"contact"`
	Created bool         `json:"created"`
}

// findOrCreate answers POST /internal/v1/contacts/find-or-create: 200 with
// the live contact of the external id, or 201 with a new contact.
func (h *Handlers) findOrCreate(c *fiber.Ctx, tx idempotency.Tx) error {
	var body contactBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	ct, created, err := h.app.FindOrCreate(c.UserContext(), h.scope(c).WithTx(tx), body.input())
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return httpx.Data(c, status, foundOrCreated{Contact: wire.NewContact(ct, true), Created: created})
}

// searchContacts answers GET /internal/v1/contacts/search?name=&phone=&email=&limit=.
func (h *Handlers) searchContacts(c *fiber.Ctx) error {
	qr := httpx.Queries(c)
	name, email, phone, lim := qr.Text("name"), qr.Text("email"), phoneQuery(qr), qr.Text("limit")
	if err := qr.Err(); err != nil {
		return err
	}
	limit := 0
	if v := lim; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return apierr.Field("limit", "The limit must be between 1 and 50.")
		}
		limit = n
	}
	q := app.SearchQuery{Name: name, Phone: phone, Email: email, Limit: limit}
	list, err := h.app.SearchContacts(c.UserContext(), h.scope(c), q)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewCandidates(list))
}

// lookupPhone answers GET /internal/v1/phones/{phone}: the phone record
// (id, E.164 number) named by a contact's phone_id.
func (h *Handlers) lookupPhone(c *fiber.Ctx) error {
	p, err := h.app.LookupPhone(c.UserContext(), h.scope(c), c.Params("phone"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewPhoneRecord(p))
}
