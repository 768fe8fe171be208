package pages

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// submitPay answers the pay form: the card is checked, charged on the
// sandbox rail, and the outcome shown.
func (p *Pages) submitPay(c *fiber.Ctx) error {
	l, it, err := p.accept(c, txn.Receivable)
	if err != nil {
		return p.failLink(c, l, err)
	}
	if problems := textProblems(c, "card_number", "exp_month", "exp_year", "cvc", "cardholder_name"); problems != nil {
		pg := p.pageFor(c, l, it, problems, nil)
		pg.Status = http.StatusUnprocessableEntity
		return p.render(c, pg)
	}
	form := sandbox.CardForm{Number: c.FormValue("card_number"), ExpMonth: c.FormValue("exp_month"),
		ExpYear: c.FormValue("exp_year"), CVC: c.FormValue("cvc"), Name: c.FormValue("cardholder_name")}
	if problems := form.Check(p.app.Now()); len(problems) > 0 {
		pg := p.pageFor(c, l, it, problems, map[string]string{"cardholder_name": strings.TrimSpace(form.Name)})
		pg.Status = http.StatusUnprocessableEntity
		return p.render(c, pg)
	}
	paid, err := p.app.Pay(c.UserContext(), l.id, l.expires, form)
	notice := ""
	if err == nil && paid.Status == txn.Pending && paid.FailureReason != nil && *paid.FailureReason == "card_declined" {
		notice = "Your card was declined. Try another card."
	}
	return p.outcome(c, l, err, notice)
}

// submitPayout answers the payout form: the destination is checked and
// selected, then the identity check and the disbursement run.
func (p *Pages) submitPayout(c *fiber.Ctx) error {
	l, it, err := p.accept(c, txn.Payable)
	if err != nil {
		return p.failLink(c, l, err)
	}
	if problems := textProblems(c, "destination_type", "account_holder_name", "routing_number", "account_number", "card_number"); problems != nil {
		pg := p.pageFor(c, l, it, problems, nil)
		pg.Status = http.StatusUnprocessableEntity
		return p.render(c, pg)
	}
	form := sandbox.DestinationForm{Type: c.FormValue("destination_type"), HolderName: c.FormValue("account_holder_name"),
		RoutingNumber: c.FormValue("routing_number"), AccountNumber: c.FormValue("account_number"), CardNumber: c.FormValue("card_number")}
	problems, last4 := form.Check()
	if len(problems) > 0 {
		values := map[string]string{"account_holder_name": strings.TrimSpace(form.HolderName)}
		if form.Type == sandbox.BankAccount || form.Type == sandbox.DebitCard {
			values["destination_type"] = form.Type
		}
		pg := p.pageFor(c, l, it, problems, values)
		pg.Status = http.StatusUnprocessableEntity
		return p.render(c, pg)
	}
	_, err = p.app.SelectDestination(c.UserContext(), l.id, l.expires, form.Type, last4)
	return p.outcome(c, l, err, "")
}

// textProblems names each posted field whose value is not text (bytes that
// are not UTF-8, or U+0000): no card, number or name holds them, and they
// must reach neither the rail nor the database. The form is shown again
// with the field emptied. Nil when every value is text.
func textProblems(c *fiber.Ctx, fields ...string) map[string]string {
	var out map[string]string
	for _, f := range fields {
		if httpx.CheckText(f, []byte(c.FormValue(f))) != nil {
			if out == nil {
				out = map[string]string{}
			}
			out[f] = "This field holds characters that cannot be read; type it again."
		}
	}
	return out
}

// accept checks a post: the signature, the CSRF token (419), and that the
// link still opens its item.
func (p *Pages) accept(c *fiber.Ctx, d txn.Direction) (link, txn.Item, error) {
	l, err := p.verify(c, d)
	if err != nil {
		return link{}, txn.Item{}, err
	}
	if !csrfValid(c, p.signer, l.path) {
		return l, txn.Item{}, errCSRF
	}
	it, err := p.app.OpenLink(c.UserContext(), d, l.id, l.expires)
	return l, it, err
}

// outcome shows the item after a submission, read again through its link:
// a submission the state machine refused (a second tab, a double click)
// shows where things stand, and a link the submission revoked (the fifth
// declined card) answers 410 like any later visit. notice, when set, tells
// what happened to this submission (a declined card); a later visit of the
// page does not repeat it.
func (p *Pages) outcome(c *fiber.Ctx, l link, err error, notice string) error {
	if errors.Is(err, app.ErrHostedRail) {
		// A form posted to a link of a provider's rail: no number is read;
		// the page sends the customer to the provider instead.
		return c.Redirect(l.action, http.StatusSeeOther)
	}
	var te *txn.TransitionError
	if err != nil && !errors.As(err, &te) {
		return p.failLink(c, l, err)
	}
	it, err := p.app.OpenLink(c.UserContext(), l.dir, l.id, l.expires)
	if err != nil {
		return p.failLink(c, l, err)
	}
	pg := p.pageFor(c, l, it, nil, nil)
	if it.Status == txn.Pending {
		pg.Notice = notice
	}
	return p.render(c, pg)
}

// errCSRF is a post without a matching CSRF token.
var errCSRF = errors.New("pages: csrf token mismatch")
