package testenv

import (
	"net/url"
	"testing"

	"github.com/paylane/paylane/libs/ids"
)

// InboundPath is where the SMS provider posts inbound messages.
const InboundPath = "/webhooks/sms/inbound"

// Inbound returns the form Twilio posts for an SMS from one number to another.
func Inbound(from, to, body string) url.Values {
	return url.Values{
		"MessageSid": {"SM" + ids.New()}, "SmsSid": {"SM" + ids.New()}, "AccountSid": {TwilioAccountSID},
		"MessagingServiceSid": {""}, "From": {from}, "To": {to}, "Body": {body}, "NumMedia": {"0"},
		"NumSegments": {"1"}, "SmsStatus": {"received"}, "ApiVersion": {"2010-04-01"},
		"FromCountry": {"US"}, "FromZip": {"94105"}, "ToCountry": {"US"},
	}
}

// Text posts a signed inbound SMS and returns the answer.
func (e *Env) Text(t testing.TB, from, to, body string) Response {
	t.Helper()
	return e.PostSigned(t, InboundPath, Inbound(from, to, body))
}
