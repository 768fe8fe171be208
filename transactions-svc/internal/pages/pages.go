// Package pages serves the hosted pages behind SMS links: the pay page of a
// receivable (/l/r/{id}) and the payout page of a payable (/l/p/{id}).
// The gateway forwards them unauthenticated; the signed URL is the
// credential (401 invalid_signature, 410 link_expired / link_revoked). The
// pages are server-rendered HTML forms that work without JavaScript and
// post back to their own signed URL with a CSRF token (419 when it is
// missing or wrong).
package pages

import (
	"html/template"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Deps are what the pages need.
type Deps struct {
	App    *app.App
	Signer *links.Signer
	Log    *slog.Logger
}

// Pages serves the hosted pages.
type Pages struct {
	app    *app.App
	signer *links.Signer
	tpl    *template.Template
	log    *slog.Logger
}

// Register mounts the pages on r.
func Register(r fiber.Router, d Deps) {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pages{app: d.App, signer: d.Signer, tpl: newTemplates(), log: log}
	r.Get("/l/r/:id", p.show(txn.Receivable))
	// FormValue would inflate a gzip multipart post without bound.
	r.Post("/l/r/:id", httpx.RefuseEncoded, p.submitPay)
	r.Get("/l/p/:id", p.show(txn.Payable))
	r.Post("/l/p/:id", httpx.RefuseEncoded, p.submitPayout)
}

// link is a verified request to a hosted page.
type link struct {
	dir     txn.Direction
	id      string
	path    string
	action  string // the page's own signed URL, path and query
	expires time.Time
}

// verify checks the signature of the request's link. The caller renders
// the error.
func (p *Pages) verify(c *fiber.Ctx, d txn.Direction) (link, error) {
	id := c.Params("id")
	path := links.ReceivablePrefix + id
	if d == txn.Payable {
		path = links.PayablePrefix + id
	}
	expires, errExp := httpx.Query(c, "expires")
	sig, errSig := httpx.Query(c, "signature")
	if errExp != nil || errSig != nil {
		expires, sig = "", "" // no signed link holds such bytes: Verify refuses it as unsigned
	}
	exp, err := p.signer.Verify(path, expires, sig, p.app.Now())
	if err != nil {
		return link{}, err
	}
	return link{dir: d, id: id, path: path, expires: exp,
		action: path + "?expires=" + expires + "&signature=" + sig}, nil
}

// show answers GET: the form while the item waits for the customer, else
// a page saying where things stand.
func (p *Pages) show(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		l, err := p.verify(c, d)
		if err != nil {
			return p.fail(c, err)
		}
		it, err := p.app.OpenLink(c.UserContext(), d, l.id, l.expires)
		if err != nil {
			return p.failLink(c, l, err)
		}
		if it.Rail == string(rail.Stripe) {
			return p.hosted(c, l, it)
		}
		return p.render(c, p.pageFor(c, l, it, nil, nil))
	}
}
