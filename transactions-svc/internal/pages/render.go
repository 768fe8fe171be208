package pages

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// statusCSRF is the status of a post without a valid CSRF token.
const statusCSRF = 419

// pageFor describes the page of an item: the form while it waits for the
// customer, else where it stands (with its receipt once settled).
func (p *Pages) pageFor(c *fiber.Ctx, l link, it txn.Item, problems, values map[string]string) page {
	pg := page{Status: http.StatusOK, Amount: txn.FormatAmount(it.Amount, it.Currency), Errors: problems,
		Values: values, Sandbox: sandboxRail(it), Payee: p.payee(c, it.TenantID)}
	if it.Description != nil {
		pg.Description = *it.Description
	}
	if pg.Values == nil {
		pg.Values = map[string]string{}
	}
	if it.Direction == txn.Payable {
		payoutPage(&pg, it)
	} else {
		payPage(&pg, it)
	}
	if pg.Kind != "notice" {
		pg.Action, pg.CSRF = l.action, csrfToken(c, p.signer, l.path)
	} else {
		pg.Receipt = receiptOf(it)
	}
	return pg
}

// sandboxRail reports whether the sandbox simulator settles the item: only
// its pages list the test numbers, since a payer facing a real rail must
// not read "no money moves".
func sandboxRail(it txn.Item) bool {
	return it.Rail == "" || it.Rail == string(rail.Sandbox)
}

// payPage fills the page of a receivable. A declined card is told only in
// the answer to the post that was declined (submitPay), never on a later
// visit: a payer who comes back must not read of an old attempt.
func payPage(pg *page, it txn.Item) {
	pg.Title, pg.Heading, pg.Kind = "Payment request", "Payment request", "notice"
	switch it.Status {
	case txn.Pending:
		pg.Kind = "pay"
	case txn.Processing:
		pg.Heading, pg.Message = "Payment processing", "Your payment is being processed."
	case txn.Paid:
		pg.Title, pg.Heading, pg.Message = "Payment received", "Payment received", "Thank you. Your payment is complete."
	case txn.Failed:
		pg.Heading, pg.Message = "Payment not completed", "The payment processor could not complete your payment. No money was taken; the sender will follow up."
	default:
		pg.Message = "This payment request is not available."
	}
}

func payoutPage(pg *page, it txn.Item) {
	pg.Title, pg.Heading, pg.Kind = "Your payout", "Your payout", "notice"
	switch it.Status {
	case txn.Pending:
		pg.Kind = "payout"
	case txn.DestinationSelected:
		pg.Heading = "Verification needed"
		pg.Message = "We could not verify the account you chose. The sender will contact you."
	case txn.Verified, txn.Processing:
		pg.Heading, pg.Message = "Payout on its way", "Your payout is being processed."
	case txn.Disbursed:
		pg.Title, pg.Heading, pg.Message = "Payout sent", "Payout sent", "The money is on its way to the account you chose."
	case txn.Failed:
		pg.Heading, pg.Message = "Payout delayed", "The payout did not go through yet. The sender will retry it."
	default:
		pg.Message = "This payout is not available."
	}
}

// render writes pg as HTML with headers that keep the signed URL and the
// form to this page: no caching, no referrer, no framing.
func (p *Pages) render(c *fiber.Ctx, pg page) error {
	var buf bytes.Buffer
	if err := p.tpl.Execute(&buf, pg); err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderContentSecurityPolicy,
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(pg.Status).Send(buf.Bytes())
}

// fail answers an error of a page: JSON (the API envelope) when the client
// asks for application/json, else an HTML page with the same status. The
// link's signature was not verified, so the page names no tenant.
func (p *Pages) fail(c *fiber.Ctx, err error) error {
	return p.failAs(c, err, "")
}

// failLink answers an error of a link whose signature was verified (it
// expired, was revoked, or the form expired): the page names the tenant
// that sent it, so the payer knows whom to ask for a new one.
func (p *Pages) failLink(c *fiber.Ctx, l link, err error) error {
	if l.id == "" || pageError(err).Status >= http.StatusInternalServerError {
		return p.fail(c, err) // not verified, or no page to show
	}
	name, nerr := p.app.LinkTenantName(c.UserContext(), l.dir, l.id)
	if nerr != nil && !errors.Is(nerr, txn.ErrNotFound) {
		p.log.WarnContext(c.UserContext(), "reading the tenant name of a page", "err", nerr)
	}
	return p.failAs(c, err, name)
}

func (p *Pages) failAs(c *fiber.Ctx, err error, payee string) error {
	e := pageError(err)
	if e.Status >= http.StatusInternalServerError {
		return err // the error handler logs it and answers 500
	}
	if strings.Contains(c.Get(fiber.HeaderAccept), fiber.MIMEApplicationJSON) {
		return e
	}
	return p.render(c, page{Status: e.Status, Title: e.Message, Heading: e.Message, Kind: "notice",
		Message: explain(e.Code), Payee: payee})
}

// payee returns the display name of the tenant, or "" when it is not known
// yet (no tenant event reached this service) or cannot be read: a page
// without the name beats no page.
func (p *Pages) payee(c *fiber.Ctx, tenantID string) string {
	name, err := p.app.TenantName(c.UserContext(), tenantID)
	if err != nil {
		p.log.WarnContext(c.UserContext(), "reading the tenant name of a page", "err", err)
	}
	return name
}

// pageError maps an error to its status and code.
func pageError(err error) *apierr.Error {
	switch {
	case errors.Is(err, links.ErrInvalidSignature):
		return apierr.New(http.StatusUnauthorized, apierr.CodeInvalidSignature, "This link is not valid")
	case errors.Is(err, links.ErrExpired), errors.Is(err, app.ErrLinkExpired):
		return apierr.New(http.StatusGone, apierr.CodeLinkExpired, "This link has expired")
	case errors.Is(err, app.ErrLinkRevoked):
		return apierr.New(http.StatusGone, apierr.CodeLinkRevoked, "This link is no longer active")
	case errors.Is(err, errCSRF):
		return apierr.New(statusCSRF, apierr.CodeCSRFTokenMismatch, "This form has expired")
	case errors.Is(err, txn.ErrNotFound):
		return apierr.NotFound()
	}
	return apierr.Internal()
}

func explain(code string) string {
	switch code {
	case apierr.CodeInvalidSignature:
		return "Check that you opened the whole link from your message."
	case apierr.CodeLinkExpired, apierr.CodeLinkRevoked:
		return "Ask the sender for a new link."
	case apierr.CodeCSRFTokenMismatch:
		return "Go back, reload the page and submit the form again."
	}
	return ""
}
