package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// actionFunc is a lifecycle action of either direction.
type actionFunc func(ctx context.Context, s app.Scope, d txn.Direction, id string) (txn.Item, error)

// direct adapts an action of one direction (the route fixes it).
func direct(fn func(ctx context.Context, s app.Scope, id string) (txn.Item, error)) actionFunc {
	return func(ctx context.Context, s app.Scope, _ txn.Direction, id string) (txn.Item, error) {
		return fn(ctx, s, id)
	}
}

// action answers POST /{id}/<action> with an empty body: 200 with the
// receivable or payable after the action.
func (h *Handlers) action(d txn.Direction, fn actionFunc) idempotency.Handler {
	return func(c *fiber.Ctx, tx idempotency.Tx) error {
		var body emptyBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		it, err := fn(c.UserContext(), scope(c).WithTx(tx), d, strings.Clone(c.Params("id")))
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusOK, h.app.View(it))
	}
}

// settle answers mark-paid and mark-disbursed: body {reference?}.
func (h *Handlers) settle(d txn.Direction) idempotency.Handler {
	return func(c *fiber.Ctx, tx idempotency.Tx) error {
		var body settleBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		it, err := h.app.MarkSettled(c.UserContext(), scope(c).WithTx(tx), d, strings.Clone(c.Params("id")), body.Reference)
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusOK, h.app.View(it))
	}
}

// assignCampaign answers POST /transactions/{transaction}/campaign-assignment
// with the transaction.
func (h *Handlers) assignCampaign(c *fiber.Ctx, tx idempotency.Tx) error {
	var body assignmentBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	if body.CampaignID == nil || *body.CampaignID == "" {
		return apierr.Field("campaign_id", "The campaign_id field is required.")
	}
	it, err := h.app.AssignCampaign(c.UserContext(), scope(c).WithTx(tx), strings.Clone(c.Params("transaction")),
		*body.CampaignID, body.Reassign != nil && *body.Reassign)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewTransaction(it))
}
