package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/app"
)

// paymentRails mounts /payment-rail (contract section 13) and the
// providers' webhooks, which carry no bearer token: the provider's
// signature is their credential.
func (h *Handlers) paymentRails(r, api fiber.Router, idem func(idempotency.Handler) fiber.Handler) {
	api.Get("/payment-rail", authz.Require("api:view-payment-rail"), h.showRail)
	api.Put("/payment-rail", authz.Require("api:update-payment-rail"), idem(h.putRail))
	api.Delete("/payment-rail", authz.Require("api:delete-payment-rail"), h.deleteRail)
	r.Post("/webhooks/rails/:provider/:rail", httpx.RefuseEncoded, h.railWebhook)
}

// railBody is the body of PUT /payment-rail.
type railBody struct {
	Provider             string  `json:"provider"`
	SecretKey            string  `json:"secret_key"`
	WebhookSecret        string  `json:"webhook_secret"`
	ConnectWebhookSecret string  `json:"connect_webhook_secret"`
	PublishableKey       *string `json:"publishable_key"`
}

// railJSON is the rail as the API shows it: never a secret.
type railJSON struct {
	Provider       string  `json:"provider"`
	Mode           *string `json:"mode"`
	AccountID      *string `json:"account_id"`
	PublishableKey *string `json:"publishable_key"`
	SecretKeyLast4 *string `json:"secret_key_last4"`
	WebhookURL     *string `json:"webhook_url"`
	UpdatedAt      *string `json:"updated_at"`
}

func railAnswer(c *fiber.Ctx, r app.PaymentRail, err error) error {
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, railJSON{Provider: r.Provider, Mode: r.Mode, AccountID: r.AccountID,
		PublishableKey: r.PublishableKey, SecretKeyLast4: r.SecretKeyLast4, WebhookURL: r.WebhookURL,
		UpdatedAt: apitime.FormatPtr(r.UpdatedAt)})
}

func (h *Handlers) showRail(c *fiber.Ctx) error {
	r, err := h.app.GetPaymentRail(c.UserContext(), scope(c))
	return railAnswer(c, r, err)
}

func (h *Handlers) putRail(c *fiber.Ctx, tx idempotency.Tx) error {
	var b railBody
	if err := httpx.Decode(c, &b); err != nil {
		return err
	}
	r, err := h.app.PutPaymentRail(c.UserContext(), scope(c).WithTx(tx), app.RailInput{Provider: b.Provider,
		SecretKey: strings.TrimSpace(b.SecretKey), WebhookSecret: strings.TrimSpace(b.WebhookSecret),
		ConnectWebhookSecret: strings.TrimSpace(b.ConnectWebhookSecret), PublishableKey: b.PublishableKey})
	return railAnswer(c, r, err)
}

func (h *Handlers) deleteRail(c *fiber.Ctx) error {
	if err := h.app.DeletePaymentRail(c.UserContext(), scope(c)); err != nil {
		return err
	}
	return httpx.NoContent(c)
}

// railWebhook answers a provider's webhook: 200 once applied (or already
// applied), 401 invalid_signature when the signature does not verify.
func (h *Handlers) railWebhook(c *fiber.Ctx) error {
	err := h.app.RailWebhook(c.UserContext(), c.Params("provider"), strings.Clone(c.Params("rail")), c.Body(),
		c.Get("Stripe-Signature"), h.log)
	if err != nil {
		return err
	}
	return c.Status(http.StatusOK).JSON(fiber.Map{"received": true})
}
