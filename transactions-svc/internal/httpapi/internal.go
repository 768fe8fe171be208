package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// internalRoutes mounts what other services call through
// transactions-svc/client: for ai-gateway-svc, with the internal token the
// gateway forwarded to it, prepare a draft, confirm it, read a
// transaction's status; for batch-svc, with a token of the tenant, bulk
// create a chunk of a batch and count campaign steps; for optin-svc, with a
// service token of the tenant, read the number and text of the
// notifications whose notification.requested events it consumes (one, or
// up to 100 at once); for dashboard-svc, with
// the signed-in user's token, a receivable's or payable's activity (state
// history and messages) and the per-status counts and amount sums of the
// overview. Each checks the
// ability of the direction it acts on (create or view). The gateway never
// routes /internal. Bulk creates carry no Idempotency-Key: each row is
// recorded under (batch id, row index) instead.
func (h *Handlers) internalRoutes(r fiber.Router, v *authz.Verifier, idem func(idempotency.Handler) fiber.Handler) {
	g := r.Group("/internal/v1", authz.Middleware(v))
	g.Post("/drafts", idem(h.prepare))
	g.Post("/transactions/:transaction/confirm", idem(h.confirm))
	g.Get("/transactions/:reference/status", h.status)
	g.Post("/receivables/bulk-create", authz.Require("api:create-receivable"), h.bulkCreate(txn.Receivable))
	g.Post("/payables/bulk-create", authz.Require("api:create-payable"), h.bulkCreate(txn.Payable))
	g.Get("/campaigns/steps", h.campaignSteps)
	g.Get("/notifications", h.notificationsByID)
	g.Get("/notifications/:notification", h.notification)
	for _, d := range []txn.Direction{txn.Receivable, txn.Payable} {
		res := string(d)
		g.Get("/"+res+"s/summary", authz.Require("api:view-any-"+res), h.summary(d))
		g.Get("/"+res+"s/:id/activity", authz.Require("api:view-"+res), h.activity(d))
	}
}

// notification answers GET /internal/v1/notifications/{id} with
// {data: {id, kind, to, body}}: what optin-svc sends for a
// notification.requested event, whose data carries only the ids. It needs
// the view ability of the notification's direction; another tenant's,
// unknown or expired (7 days) id is 404.
func (h *Handlers) notification(c *fiber.Ctx) error {
	n, err := h.app.Notification(c.UserContext(), scope(c), strings.Clone(c.Params("notification")))
	if err != nil {
		return err
	}
	if err := authz.Check(c, "api:view-"+string(n.Direction)); err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.Notification{ID: n.ID, Kind: n.Kind, To: n.To, Body: n.Body})
}

// notificationsByID answers GET /internal/v1/notifications?ids=a,b,c with
// {data: [{id, kind, to, body}]}: the tenant's notifications among at most
// 100 ids (app.NotificationsByID), for optin-svc's batches of
// notification.requested events. Unknown, expired and other tenants' ids
// are left out; an empty list, a malformed id or more than 100 is 422 on
// ids. The caller needs the view ability of every found notification's
// direction (403 otherwise, as for the single read).
func (h *Handlers) notificationsByID(c *fiber.Ctx) error {
	q := httpx.Queries(c)
	list := q.IDs("ids", app.MaxNotificationsByID, "notification")
	if err := q.Err(); err != nil {
		return err
	}
	found, err := h.app.NotificationsByID(c.UserContext(), scope(c), list)
	if err != nil {
		return err
	}
	out := make([]wire.Notification, len(found))
	for i, n := range found {
		if err := authz.Check(c, "api:view-"+string(n.Direction)); err != nil {
			return err
		}
		out[i] = wire.Notification{ID: n.ID, Kind: n.Kind, To: n.To, Body: n.Body}
	}
	return httpx.Data(c, http.StatusOK, out)
}

// campaignSteps answers GET /internal/v1/campaigns/steps?direction=&campaign_id=&auto_assign=
// with {data: {steps}} (app.CampaignSteps), behind the direction's create
// ability.
func (h *Handlers) campaignSteps(c *fiber.Ctx) error {
	q := httpx.Queries(c)
	d, autoAssign, campaignID := txn.Direction(q.Text("direction")), q.Text("auto_assign"), q.Text("campaign_id")
	if err := q.Err(); err != nil {
		return err
	}
	if !d.Valid() {
		return apierr.Field("direction", "The direction must be receivable or payable.")
	}
	if err := authz.Check(c, "api:create-"+string(d)); err != nil {
		return err
	}
	auto := false
	switch autoAssign {
	case "", "false", "0":
	case "true", "1":
		auto = true
	default:
		return apierr.Field("auto_assign", "The auto_assign field must be true or false.")
	}
	steps, err := h.app.CampaignSteps(c.UserContext(), scope(c), d, campaignID, auto)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, fiber.Map{"steps": steps})
}

// draftBody is a single-create body with its direction.
type draftBody struct {
	Direction *string `json:"direction"`
	itemBody
}

func (h *Handlers) prepare(c *fiber.Ctx, tx idempotency.Tx) error {
	var body draftBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	if body.Direction == nil || !txn.Direction(*body.Direction).Valid() {
		return apierr.Field("direction", "The direction must be receivable or payable.")
	}
	d := txn.Direction(*body.Direction)
	if err := authz.Check(c, "api:create-"+string(d)); err != nil {
		return err
	}
	it, p, err := h.app.Prepare(c.UserContext(), scope(c).WithTx(tx), d, body.input())
	if err != nil {
		return err
	}
	rid, pid := wire.ItemIDs(it)
	return httpx.Data(c, http.StatusCreated, wire.Draft{
		TransactionID: it.TransactionID, ReceivableID: rid, PayableID: pid, Direction: string(d), Status: string(it.Status),
		Preview: wire.Preview{RecipientName: p.RecipientName, PhoneLast4: p.PhoneLast4, AmountFormatted: p.AmountFormatted,
			MessagePreview: p.MessagePreview, SendAt: apitime.FormatPtr(it.SendAt)},
		ExpiresAt: apitime.Format(p.ExpiresAt),
	})
}

func (h *Handlers) confirm(c *fiber.Ctx, tx idempotency.Tx) error {
	var body struct {
		SendAt *string `json:"send_at"`
	}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	id := strings.Clone(c.Params("transaction"))
	it, err := h.app.Lookup(c.UserContext(), scope(c).WithTx(tx), id)
	if err != nil || it.TransactionID != id {
		return orNotFound(err)
	}
	if err := authz.Check(c, "api:create-"+string(it.Direction)); err != nil {
		return err
	}
	it, err = h.app.Confirm(c.UserContext(), scope(c).WithTx(tx), id, body.SendAt)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.Confirmed{TransactionID: it.TransactionID, Status: string(it.Status)})
}

func (h *Handlers) status(c *fiber.Ctx) error {
	it, err := h.app.Lookup(c.UserContext(), scope(c), c.Params("reference"))
	if err != nil {
		return err
	}
	if err := authz.Check(c, "api:view-"+string(it.Direction)); err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewStatus(it))
}

// orNotFound turns "found, but not by its transaction id" into not found.
func orNotFound(err error) error {
	if err == nil {
		return txn.ErrNotFound
	}
	return err
}
