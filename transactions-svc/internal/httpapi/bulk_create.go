package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// bulkBody is the body of POST /internal/v1/{receivables|payables}/bulk-create:
// a chunk of a batch. Item i is row first_row_index + i of the batch.
type bulkBody struct {
	BatchID            string      `json:"batch_id"`
	Direction          string      `json:"direction"`
	OnDuplicate        string      `json:"on_duplicate"`
	FirstRowIndex      int         `json:"first_row_index"`
	EmitEvents         bool        `json:"emit_events"`
	CampaignID         string      `json:"campaign_id"`
	AutoAssignCampaign bool        `json:"auto_assign_campaign"`
	Items              httpx.Items `json:"items"`
}

// bulkContact is the contact object of a batch item.
type bulkContact struct {
	ExternalID *string `json:"external_id"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	Phone      *string `json:"phone"`
	Email      *string `json:"email"`
}

// bulkItemBody is a batch item: a single-create body whose contact object
// may carry the fields of a new contact.
type bulkItemBody struct {
	itemBody
	Contact *bulkContact `json:"contact"` // shadows itemBody's contact {external_id}
}

// row returns the item as a batch row.
func (b bulkItemBody) row(index int) app.BulkRow {
	row := app.BulkRow{Index: index, Input: b.input()}
	if c := b.Contact; c != nil {
		row.Input.ContactObject, row.Input.ContactExternalID = true, c.ExternalID
		row.Contact = &app.NewContact{ExternalID: deref(c.ExternalID), FirstName: deref(c.FirstName),
			LastName: deref(c.LastName), Phone: deref(c.Phone), Email: deref(c.Email)}
	}
	return row
}

// bulkCreate answers POST /internal/v1/{receivables|payables}/bulk-create
// with one result per item, in order: 200 {data: [{row_index, id?, action,
// errors?}]}. The route's direction decides; a body direction that
// contradicts it is 422.
func (h *Handlers) bulkCreate(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var body bulkBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		if body.Direction != "" && body.Direction != string(d) {
			return apierr.Field("direction", "The direction must be "+string(d)+" on this route.")
		}
		req := app.BulkRequest{
			BatchID: body.BatchID, Direction: d, OnDuplicate: txn.OnDuplicate(body.OnDuplicate), EmitEvents: body.EmitEvents,
			CampaignID: body.CampaignID, AutoAssignCampaign: body.AutoAssignCampaign, Rows: make([]app.BulkRow, len(body.Items)),
		}
		if req.OnDuplicate == "" {
			req.OnDuplicate = txn.DuplicateUpdate
		}
		for i, raw := range body.Items {
			item, problems := decodeItem(raw)
			req.Rows[i] = item.row(body.FirstRowIndex + i)
			req.Rows[i].Invalid = problems
		}
		results, err := h.app.BulkCreate(c.UserContext(), scope(c), req)
		if err != nil {
			return err
		}
		out := make([]rowResult, len(results))
		for i, r := range results {
			out[i] = rowResult{RowIndex: r.RowIndex, ID: r.ID, Action: string(r.Action), Errors: r.Errors}
		}
		return httpx.Data(c, http.StatusOK, out)
	}
}

// rowResult is a bulk-create row outcome as the client reads it.
type rowResult struct {
	RowIndex int                 `json:"row_index"`
	ID       string              `json:"id,omitempty"`
	Action   string              `json:"action"`
	Errors   map[string][]string `json:"errors,omitempty"`
}

// decodeItem reads one item strictly (httpx.DecodeItem); an item with
// problems is left empty.
func decodeItem(raw json.RawMessage) (bulkItemBody, map[string][]string) {
	var item bulkItemBody
	if problems := httpx.DecodeItem(raw, &item); problems != nil {
		return bulkItemBody{}, problems
	}
	return item, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
