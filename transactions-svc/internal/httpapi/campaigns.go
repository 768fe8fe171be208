package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// campaignsPerPage is the default page size of campaigns (contract section 2).
const campaignsPerPage = 15

func (h *Handlers) listCampaigns(c *fiber.Ctx) error {
	page, err := httpx.ParsePage(c, campaignsPerPage)
	if err != nil {
		return err
	}
	list, total, err := h.app.ListCampaigns(c.UserContext(), scope(c), app.Page{Limit: page.PerPage, Offset: page.Offset()})
	if err != nil {
		return err
	}
	out := make([]wire.Campaign, len(list))
	for i, cp := range list {
		out[i] = wire.NewCampaign(cp)
	}
	return httpx.Collection(c, out, page, listtotal.Exact(total))
}

func (h *Handlers) createCampaign(c *fiber.Ctx, tx idempotency.Tx) error {
	var body campaignBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	cp, err := h.app.CreateCampaign(c.UserContext(), scope(c).WithTx(tx), body.input())
	return campaignAnswer(c, http.StatusCreated, cp, err)
}

func (h *Handlers) showCampaign(c *fiber.Ctx) error {
	cp, err := h.app.GetCampaign(c.UserContext(), scope(c), c.Params("id"))
	return campaignAnswer(c, http.StatusOK, cp, err)
}

func (h *Handlers) replaceCampaign(c *fiber.Ctx, tx idempotency.Tx) error {
	var body replaceCampaignBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	cp, err := h.app.ReplaceCampaign(c.UserContext(), scope(c).WithTx(tx), strings.Clone(c.Params("id")), body.input())
	return campaignAnswer(c, http.StatusOK, cp, err)
}

func (h *Handlers) publishCampaign(c *fiber.Ctx, tx idempotency.Tx) error {
	var body emptyBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	cp, err := h.app.PublishCampaign(c.UserContext(), scope(c).WithTx(tx), strings.Clone(c.Params("id")))
	return campaignAnswer(c, http.StatusOK, cp, err)
}

func (h *Handlers) deleteCampaign(c *fiber.Ctx) error {
	if err := h.app.DeleteCampaign(c.UserContext(), scope(c), c.Params("id")); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

func campaignAnswer(c *fiber.Ctx, status int, cp campaign.Campaign, err error) error {
	if err != nil {
		return err
	}
	return httpx.Data(c, status, wire.NewCampaign(cp))
}
