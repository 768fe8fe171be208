package httpapi

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// csrfCookie carries the landing form's token (double-submit: the form's
// _csrf must equal it). A cross-site page can neither read nor set it.
const csrfCookie = "optin_csrf"

// landing serves the opt-in landing pages /l/o/{code}.
type landing struct {
	app *app.App
	// secure marks the cookie Secure (the public host is https).
	secure bool
	region string
	log    *slog.Logger
}

// show answers GET /l/o/{code}: the form, counting a scan.
func (l *landing) show(c *fiber.Ctx) error {
	page, err := l.app.OpenLanding(c.UserContext(), c.Params("code"), true)
	if err != nil {
		return l.refuse(c, err)
	}
	return l.render(c, http.StatusOK, landingView{
		TenantName: page.TenantName, Region: page.Region, DoubleOptIn: page.Code.DoubleOptIn, CSRF: l.token(c),
	})
}

// submit answers POST /l/o/{code}: the consent.
func (l *landing) submit(c *fiber.Ctx) error {
	if !l.validToken(c) {
		return l.message(c, 419, "Please try again", "The form expired or came from another page. Go back, reload the page and send it again.")
	}
	in := app.SubscribeInput{Phone: strings.Clone(c.FormValue("phone")), Consent: strings.Clone(c.FormValue("consent"))}
	sub, err := l.app.Subscribe(c.UserContext(), c.Params("code"), in)
	var ve *app.ValidationError
	if errors.As(err, &ve) {
		page, perr := l.app.OpenLanding(c.UserContext(), c.Params("code"), false)
		if perr != nil {
			return l.refuse(c, perr)
		}
		v := landingView{TenantName: page.TenantName, Region: page.Region, DoubleOptIn: page.Code.DoubleOptIn, CSRF: l.token(c),
			Phone: in.Phone, PhoneError: first(ve.Fields["phone"]), ConsentError: first(ve.Fields["consent"])}
		v.Errors = nonEmpty(v.PhoneError, v.ConsentError)
		return l.render(c, http.StatusUnprocessableEntity, v)
	}
	if err != nil {
		return l.refuse(c, err)
	}
	return l.render(c, http.StatusOK, landingView{TenantName: sub.Landing.TenantName, Done: outcome(sub)})
}

// outcome tells the person what happens next.
func outcome(sub app.Subscription) string {
	switch {
	case sub.Suppressed:
		return "Thank you. You earlier replied STOP to our texts: reply START to us to receive them again."
	case sub.Status == optin.ConsentPending:
		return "Thank you. We have sent you a text message: reply YES to confirm your sign-up."
	default:
		return "Thank you, you are signed up. Reply STOP to any of our texts to opt out."
	}
}

// refuse renders a use-case error as a page: unknown codes as 404,
// anything else (a peer or the database down) as 503, logged with the
// request id.
func (l *landing) refuse(c *fiber.Ctx, err error) error {
	if errors.Is(err, optin.ErrNotFound) {
		return l.message(c, http.StatusNotFound, "Page not found", "This sign-up link is not active.")
	}
	l.log.ErrorContext(c.UserContext(), "landing page failed",
		"error", obs.RedactPhone(err.Error()))
	c.Set(fiber.HeaderRetryAfter, "30")
	return l.message(c, http.StatusServiceUnavailable, "Please try again shortly",
		"We could not take your sign-up just now. Nothing was saved; please try again in a minute.")
}

func (l *landing) render(c *fiber.Ctx, status int, v landingView) error {
	v.Action = c.Path()
	if v.Region == "" {
		v.Region = l.region
	}
	return l.page(c, status, landingPage, v)
}

func (l *landing) message(c *fiber.Ctx, status int, title, text string) error {
	return l.page(c, status, messagePage, map[string]string{"Title": title, "Text": text})
}

// page writes an HTML page with headers that keep it out of frames and caches.
func (l *landing) page(c *fiber.Ctx, status int, t *template.Template, v any) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Status(status).Send(buf.Bytes())
}

// token returns the form token: the cookie's when it holds one, else a new
// one set as the cookie.
func (l *landing) token(c *fiber.Ctx) string {
	if t := c.Cookies(csrfCookie); validTokenShape(t) {
		return strings.Clone(t)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	t := base64.RawURLEncoding.EncodeToString(b)
	c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: t, Path: "/l/o/", HTTPOnly: true, Secure: l.secure,
		SameSite: fiber.CookieSameSiteStrictMode})
	return t
}

// validToken reports whether the form's _csrf equals the cookie's token.
func (l *landing) validToken(c *fiber.Ctx) bool {
	cookie, form := c.Cookies(csrfCookie), c.FormValue("_csrf")
	return validTokenShape(cookie) && subtle.ConstantTimeCompare([]byte(cookie), []byte(form)) == 1
}

func validTokenShape(t string) bool {
	b, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil && len(b) == 32
}

func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

func nonEmpty(items ...string) []string {
	var out []string
	for _, s := range items {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
