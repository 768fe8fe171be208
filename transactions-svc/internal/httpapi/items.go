package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// defaultPerPage of receivables and payables (contract section 2).
const defaultPerPage = 25

// list answers GET /receivables and /payables: filters status, contact_id,
// external_id, campaign_id, created_since; newest first.
func (h *Handlers) list(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		page, err := httpx.ParsePage(c, defaultPerPage)
		if err != nil {
			return err
		}
		f, err := filter(c, d)
		if err != nil {
			return err
		}
		list, total, err := h.app.List(c.UserContext(), scope(c), d, f, app.Page{Limit: page.PerPage, Offset: page.Offset()})
		if err != nil {
			return err
		}
		return httpx.Collection(c, h.app.Views(list), page, total)
	}
}

// filter reads the list filters; a status the direction does not have or a
// created_since that is not a date is 422.
func filter(c *fiber.Ctx, d txn.Direction) (store.Filter, error) {
	q := httpx.Queries(c)
	f := store.Filter{Status: q.Text("status"), ContactID: q.Text("contact_id"),
		ExternalID: q.Text("external_id"), CampaignID: q.Text("campaign_id")}
	since := q.Text("created_since")
	if err := q.Err(); err != nil {
		return f, err
	}
	if f.Status != "" && !d.HasState(txn.State(f.Status)) {
		return f, apierr.Field("status", "The selected status is invalid.")
	}
	if s := since; s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t, err = time.Parse(time.DateOnly, s)
		}
		if err != nil {
			return f, apierr.Field("created_since", "The created_since must be an ISO 8601 date or date-time.")
		}
		t = t.UTC()
		f.CreatedSince = &t
	}
	return f, nil
}

// create answers POST: 201 with the new receivable or payable.
func (h *Handlers) create(d txn.Direction) idempotency.Handler {
	return func(c *fiber.Ctx, tx idempotency.Tx) error {
		var body itemBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		it, err := h.app.Create(c.UserContext(), scope(c).WithTx(tx), d, body.input())
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusCreated, h.app.View(it))
	}
}

// show answers GET /{id}.
func (h *Handlers) show(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		it, err := h.app.Get(c.UserContext(), scope(c), d, c.Params("id"))
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusOK, h.app.View(it))
	}
}

// replace answers PUT /{id}.
func (h *Handlers) replace(d txn.Direction) idempotency.Handler {
	return func(c *fiber.Ctx, tx idempotency.Tx) error {
		var body replaceItemBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		it, err := h.app.Replace(c.UserContext(), scope(c).WithTx(tx), d, strings.Clone(c.Params("id")), body.input())
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusOK, h.app.View(it))
	}
}

// remove answers DELETE /{id}: 204.
func (h *Handlers) remove(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := h.app.Delete(c.UserContext(), scope(c), d, c.Params("id")); err != nil {
			return err
		}
		return httpx.NoContent(c)
	}
}
