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
)

// bulkBody is the body of POST /internal/v1/contacts/bulk-upsert: a chunk
// of a contacts batch. Item i is row first_row_index + i of the batch; each
// item is a POST /contacts body.
type bulkBody struct {
	BatchID       string      `json:"batch_id"`
	OnDuplicate   string      `json:"on_duplicate"`
	FirstRowIndex int         `json:"first_row_index"`
	EmitEvents    bool        `json:"emit_events"`
	Items         httpx.Items `json:"items"`
}

// bulkUpsert answers POST /internal/v1/contacts/bulk-upsert with one result
// per item, in order: 200 {data: [{row_index, contact_id?, action, errors?}]}.
func (h *Handlers) bulkUpsert(c *fiber.Ctx, tx idempotency.Tx) error {
	var body bulkBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	req := app.BulkRequest{
		BatchID: body.BatchID, OnDuplicate: contact.OnDuplicate(body.OnDuplicate), EmitEvents: body.EmitEvents,
		Rows: make([]app.BulkRow, len(body.Items)),
	}
	if req.OnDuplicate == "" {
		req.OnDuplicate = contact.DuplicateUpdate
	}
	for i, raw := range body.Items {
		item, problems := decodeItem(raw)
		req.Rows[i] = app.BulkRow{Index: body.FirstRowIndex + i, Input: item.input(), Invalid: problems}
	}
	results, err := h.app.BulkUpsert(c.UserContext(), h.scope(c).WithTx(tx), req)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewRowResults(results))
}

// decodeItem reads one item strictly (httpx.DecodeItem) and reports its
// problems for the row instead of failing the request.
func decodeItem(raw json.RawMessage) (contactBody, map[string][]string) {
	var item contactBody
	problems := httpx.DecodeItem(raw, &item)
	return item, problems
}
