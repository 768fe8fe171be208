package pages

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Query parameters Paylane adds to a page's signed URL when a provider
// sends the customer back (the signature covers path and expiry only).
const (
	paramCheckout   = "checkout"   // return | cancel, from Stripe Checkout
	paramOnboarding = "onboarding" // return, from Stripe's onboarding
)

// hosted serves the page of an item on a provider's rail (Stripe): while
// the item waits for its customer, the payer is handed to the provider's
// checkout and the recipient to its onboarding (303); no card or account
// number is ever asked for here. Coming back, the page says where things
// stand; the provider's signed webhook settles the item.
func (p *Pages) hosted(c *fiber.Ctx, l link, it txn.Item) error {
	if it.Status != txn.Pending {
		return p.renderHosted(c, it.TenantID, p.pageFor(c, l, it, nil, nil))
	}
	self := p.signer.Origin() + l.action
	ctx := c.UserContext()
	if l.dir == txn.Receivable {
		switch c.Query(paramCheckout) {
		case "return":
			return p.renderHosted(c, it.TenantID, notice(http.StatusOK, "Payment submitted",
				"Thank you. Stripe is confirming your payment; this page shows it as paid once it is done."))
		case "cancel":
			return p.renderHosted(c, it.TenantID, notice(http.StatusOK, "Payment not completed",
				"You left the payment page and nothing was charged. Open the link from your message again to pay."))
		}
		url, err := p.app.StartCheckout(ctx, it, self+"&"+paramCheckout+"=return", self+"&"+paramCheckout+"=cancel")
		if err != nil {
			return p.hostedFail(c, l.dir, it.TenantID, err)
		}
		return handOver(c, url)
	}
	step, err := p.app.StartPayout(ctx, it, c.Query(paramOnboarding) == "return", self+"&"+paramOnboarding+"=return", self)
	if err != nil {
		return p.hostedFail(c, l.dir, it.TenantID, err)
	}
	if step.RedirectURL != "" {
		return handOver(c, step.RedirectURL)
	}
	if step.Item.Status == txn.Pending {
		return p.renderHosted(c, it.TenantID, notice(http.StatusOK, "Checking your details",
			"Stripe is checking the details you gave. Your payout is sent as soon as that is done; open the link from your message again to see it."))
	}
	return p.renderHosted(c, it.TenantID, p.pageFor(c, l, step.Item, nil, nil))
}

// hostedFail answers a provider that could not be reached or refused: the
// item keeps its state and its link, so the customer can simply come back.
func (p *Pages) hostedFail(c *fiber.Ctx, d txn.Direction, tenantID string, err error) error {
	safe := "Nothing was charged and your link still works: try it again in a few minutes."
	if d == txn.Payable {
		safe = "Your payout is safe and your link still works: try it again in a few minutes."
	}
	switch {
	case errors.Is(err, app.ErrUnavailable), errors.Is(err, app.ErrRailsOff):
		p.log.Warn("payment provider unavailable for a hosted page", "error", err)
		c.Set(fiber.HeaderRetryAfter, "60")
		return p.renderHosted(c, tenantID, notice(http.StatusServiceUnavailable, "Payment provider unavailable",
			"Our payment provider cannot be reached right now. "+safe))
	case errors.Is(err, app.ErrProviderRefused):
		p.log.Warn("payment provider refused a hosted page", "error", err)
		return p.renderHosted(c, tenantID, notice(http.StatusBadGateway, "Not available right now",
			"Our payment provider could not start this step. Nothing moved; the sender will follow up."))
	}
	return p.fail(c, err)
}

// handOver sends the customer to the provider's page (303), neither cached
// nor telling the provider the signed link it came from.
func handOver(c *fiber.Ctx, url string) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	return c.Redirect(url, http.StatusSeeOther)
}

func notice(status int, heading, message string) page {
	return page{Status: status, Title: heading, Heading: heading, Kind: "notice", Message: message}
}

// renderHosted renders pg without the sandbox note (a provider's rail
// moves real money in live mode) and with the tenant's name.
func (p *Pages) renderHosted(c *fiber.Ctx, tenantID string, pg page) error {
	pg.Sandbox = false
	if pg.Payee == "" {
		pg.Payee = p.payee(c, tenantID)
	}
	return p.render(c, pg)
}
