package sms_test

import (
	"net/url"
	"strings"
	"testing"

	twilio "github.com/twilio/twilio-go/client"

	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// Twilio's published example (its SDKs test against it): auth token
// 12345, this URL and these parameters sign to vOEb5UThFn24KEfnOFLQY2AE5FY=.
const (
	exampleToken     = "12345"
	exampleURL       = "https://mycompany.com/myapp.php?foo=1&bar=2"
	exampleSignature = "vOEb5UThFn24KEfnOFLQY2AE5FY="
)

func exampleParams() url.Values {
	return url.Values{
		"Digits": {"1234"}, "CallSid": {"CA1234567890ABCDE"}, "To": {"+18005551212"},
		"Caller": {"+14158675309"}, "From": {"+14158675309"}, "ReasonConferenceEnded": {"test"}, "Reason": {"Participant"},
	}
}

func TestSignatureMatchesTwilioExample(t *testing.T) {
	t.Parallel()
	if got := sms.Signature(exampleToken, exampleURL, exampleParams()); got != exampleSignature {
		t.Fatalf("Signature() = %s, want %s", got, exampleSignature)
	}
}

// The official SDK's RequestValidator must accept what Signature computes,
// and ValidSignature must accept what the SDK accepts, for inbound SMS
// shaped requests.
func TestSignatureAgreesWithTheOfficialSDK(t *testing.T) {
	t.Parallel()
	inbound := url.Values{
		"MessageSid": {"SM0123456789abcdef0123456789abcdef"}, "AccountSid": {"AC0123"},
		"From": {"+14155550100"}, "To": {"+15005550006"}, "Body": {"STOP please & thank you =)"},
		"NumMedia": {"0"}, "FromCountry": {"US"},
	}
	tests := []struct {
		name, url string
	}{
		{"https without port", "https://pay.example.test/webhooks/sms/inbound"},
		{"https with default port", "https://pay.example.test:443/webhooks/sms/inbound"},
		{"https with other port", "https://localhost:8443/webhooks/sms/inbound"},
		{"http with query", "http://pay.example.test/webhooks/sms/status?tenant=T1&message=M1"},
		{"example", exampleURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rv := twilio.NewRequestValidator("secret-token")
			sig := sms.Signature("secret-token", tt.url, inbound)
			flat := map[string]string{}
			for k, v := range inbound {
				flat[k] = v[0]
			}
			if !rv.Validate(tt.url, flat, sig) {
				t.Errorf("SDK Validate refused our signature %s", sig)
			}
			if !rv.ValidateBody(tt.url, []byte(inbound.Encode()), sig) {
				t.Errorf("SDK ValidateBody refused our signature %s", sig)
			}
			if !sms.ValidSignature("secret-token", tt.url, inbound, sig) {
				t.Errorf("ValidSignature refused its own signature")
			}
			// A signature the SDK computes over the URL variant it also
			// accepts (with or without the port) must pass here too.
			for _, variant := range []string{strings.Replace(tt.url, ":443", "", 1), tt.url} {
				other := sms.Signature("secret-token", variant, inbound)
				if rv.Validate(tt.url, flat, other) != sms.ValidSignature("secret-token", tt.url, inbound, other) {
					t.Errorf("SDK and ValidSignature disagree on the signature of %s", variant)
				}
			}
		})
	}
}

func TestValidSignatureRefusesTampering(t *testing.T) {
	t.Parallel()
	params := url.Values{"From": {"+14155550100"}, "Body": {"YES"}}
	const u = "https://pay.example.test/webhooks/sms/inbound"
	good := sms.Signature("tok", u, params)
	tampered := url.Values{"From": {"+14155550100"}, "Body": {"STOP"}}
	tests := []struct {
		name   string
		token  string
		url    string
		params url.Values
		sig    string
	}{
		{"other body", "tok", u, tampered, good},
		{"other url", "tok", "https://evil.example/webhooks/sms/inbound", params, good},
		{"other token", "other", u, params, good},
		{"empty signature", "tok", u, params, ""},
		{"empty token", "", u, params, sms.Signature("", u, params)},
		{"extra parameter", "tok", u, url.Values{"From": {"+14155550100"}, "Body": {"YES"}, "X": {"1"}}, good},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if sms.ValidSignature(tt.token, tt.url, tt.params, tt.sig) {
				t.Error("ValidSignature accepted a request it must refuse")
			}
		})
	}
	if !sms.ValidSignature("tok", u, params, good) {
		t.Error("ValidSignature refused the genuine signature")
	}
}
