package httpapi

import (
	"encoding/xml"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// callbacks serves the SMS provider's requests, each signed with Twilio's
// X-Twilio-Signature over the public URL it called.
type callbacks struct {
	app *app.App
	// authToken keys the signatures (SMS_AUTH_TOKEN).
	authToken string
	// publicBaseURL is the scheme and host the provider called.
	publicBaseURL string
	log           *slog.Logger
}

// verified reads the form of a provider request and checks its signature;
// a request that fails is refused with 403 before anything is read from it.
func (cb *callbacks) verified(c *fiber.Ctx) (url.Values, error) {
	form := url.Values{}
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		form.Add(string(k), string(v))
	})
	full := cb.publicBaseURL + c.OriginalURL()
	if !sms.ValidSignature(cb.authToken, full, form, c.Get(sms.SignatureHeader)) {
		return nil, apierr.New(http.StatusForbidden, apierr.CodeInvalidSignature, "The request signature is missing or invalid.")
	}
	return form, nil
}

// status answers POST /webhooks/sms/status?tenant=&message=: Twilio's
// MessageStatus callback.
func (cb *callbacks) status(c *fiber.Ctx) error {
	form, err := cb.verified(c)
	if err != nil {
		return err
	}
	q := httpx.Queries(c)
	tenant, message := q.Text("tenant"), q.Text("message")
	if err := q.Err(); err != nil {
		return err
	}
	err = cb.app.RecordStatus(c.UserContext(), app.StatusReport{
		TenantID:          tenant,
		MessageID:         message,
		ProviderMessageID: form.Get("MessageSid"),
		Status:            form.Get("MessageStatus"),
		ErrorCode:         form.Get("ErrorCode"),
	})
	if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// inbound answers POST /webhooks/sms/inbound: an SMS a person sent to a
// tenant's sender number, answered with TwiML (a reply, or none).
func (cb *callbacks) inbound(c *fiber.Ctx) error {
	form, err := cb.verified(c)
	if err != nil {
		return err
	}
	reply, err := cb.app.ReceiveSMS(c.UserContext(), app.InboundSMS{
		MessageSID: form.Get("MessageSid"), From: form.Get("From"), To: form.Get("To"), Body: form.Get("Body"),
	})
	if errors.Is(err, optin.ErrNoTenant) {
		cb.log.WarnContext(c.UserContext(), "inbound sms for no tenant",
			"to", obs.RedactPhone(form.Get("To")), "from", obs.RedactPhone(form.Get("From")))
		return twiml(c, "")
	}
	if err != nil {
		return err
	}
	return twiml(c, reply)
}

// twiml answers with a TwiML document that sends reply back (none when
// empty).
func twiml(c *fiber.Ctx, reply string) error {
	var b strings.Builder
	b.WriteString(xml.Header)
	if reply == "" {
		b.WriteString("<Response/>")
	} else {
		b.WriteString("<Response><Message>")
		_ = xml.EscapeText(&b, []byte(reply)) // a strings.Builder never fails
		b.WriteString("</Message></Response>")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationXMLCharsetUTF8)
	return c.Status(http.StatusOK).SendString(b.String())
}
