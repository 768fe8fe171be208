package sms_test

import (
	"net/url"
	"testing"

	twilio "github.com/twilio/twilio-go/client"

	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// FuzzValidSignature: whatever the token, URL, form and signature sent,
// the check never panics; a request signed with the token verifies, and
// the official SDK accepts the same signature for a URL it can read; the
// signature of another token, another URL or a changed parameter does not
// verify; an empty token or signature never verifies.
func FuzzValidSignature(f *testing.F) {
	f.Add("secret-token", "https://pay.example.test/webhooks/sms/inbound", "Body", "STOP", "forged=")
	f.Add("12345", exampleURL, "Digits", "1234", exampleSignature)
	f.Add("t", "http://h:80/p?x=%00", "\x00", "\xff", "")
	f.Add("", "not a url", "", "", "x")
	f.Fuzz(func(t *testing.T, token, rawURL, name, value, sent string) {
		params := url.Values{name: {value}, "To": {"+15005550006"}}
		_ = sms.ValidSignature(token, rawURL, params, sent) // any input: no panic
		sig := sms.Signature(token, rawURL, params)
		if token == "" {
			if sms.ValidSignature(token, rawURL, params, sig) {
				t.Fatal("an empty token verified")
			}
			return
		}
		if !sms.ValidSignature(token, rawURL, params, sig) {
			t.Fatalf("own signature of %q refused", rawURL)
		}
		if sms.ValidSignature(token+"x", rawURL, params, sig) {
			t.Fatal("another token's check accepted the signature")
		}
		changed := url.Values{name: {value + "x"}, "To": {"+15005550006"}}
		if sms.ValidSignature(token, rawURL, changed, sig) {
			t.Fatal("a changed parameter verified")
		}
		if sms.ValidSignature(token, rawURL+"x", params, sig) {
			t.Fatal("a changed URL verified")
		}
		if u, err := url.Parse(rawURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.Port() == "" {
			flat := map[string]string{}
			for k, v := range params {
				flat[k] = v[0]
			}
			rv := twilio.NewRequestValidator(token)
			if !rv.Validate(rawURL, flat, sig) {
				t.Fatalf("the SDK refused our signature of %q", rawURL)
			}
		}
	})
}
