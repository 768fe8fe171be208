package httpapi

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// show answers GET /api/v1/batches/{batch}.
func (h *Handlers) show(c *fiber.Ctx) error {
	hdr, err := h.app.GetBatch(c.UserContext(), viewer(c), c.Params("batch"))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewHeader(hdr, baseURL(c)))
}

// list answers GET /api/v1/batches: newest first, filtered by type and
// status; without type, the types the token may view.
func (h *Handlers) list(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, batchesPerPage)
	if err != nil {
		return err
	}
	qr := httpx.Queries(c)
	q := app.ListQuery{Type: batch.Type(qr.Text("type")), Status: batch.Status(qr.Text("status")),
		Limit: page.PerPage, Offset: page.Offset()}
	if err := qr.Err(); err != nil {
		return err
	}
	if q.Type != "" && !q.Type.Valid() {
		return apierr.Field("type", "The selected type is invalid (contacts, receivables, payables).")
	}
	if q.Status != "" && !q.Status.Valid() {
		return apierr.Field("status", "The selected status is invalid (queued, processing, completed, partial_failure, failed).")
	}
	items, total, err := h.app.ListBatches(c.UserContext(), viewer(c), q)
	if err != nil {
		return err
	}
	base := baseURL(c)
	out := make([]wire.Header, len(items))
	for i, it := range items {
		out[i] = wire.NewHeader(it, base)
	}
	return httpx.Collection(c, out, page, total)
}

// rowErrors answers GET /api/v1/batches/{batch}/errors in ascending
// row_index order.
func (h *Handlers) rowErrors(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, errorsPerPage)
	if err != nil {
		return err
	}
	items, total, err := h.app.ListRowErrors(c.UserContext(), viewer(c), c.Params("batch"), page.PerPage, page.Offset())
	if err != nil {
		return err
	}
	return httpx.Collection(c, wire.NewRowErrors(items), page, total)
}
