package sms

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"net/url"
	"sort"
)

// SignatureHeader carries the provider's signature of a callback.
const SignatureHeader = "X-Twilio-Signature"

// Signature computes Twilio's request signature: the base64 of the
// HMAC-SHA1, keyed by the auth token, of the full URL Twilio requested
// followed by every POST parameter, sorted by name, as name then value
// (a repeated name contributes each of its values, sorted).
// https://www.twilio.com/docs/usage/webhooks/webhooks-security
func Signature(authToken, fullURL string, params url.Values) string {
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(fullURL))
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		values := append([]string(nil), params[name]...)
		sort.Strings(values)
		for _, v := range values {
			mac.Write([]byte(name))
			mac.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// ValidSignature reports whether signature is Twilio's signature of the
// request. Like Twilio's own validators it accepts the URL with and
// without a port (with the scheme's default port when it has none), since
// Twilio signs the URL as it was configured. The comparison is in constant
// time.
func ValidSignature(authToken, fullURL string, params url.Values, signature string) bool {
	if authToken == "" || signature == "" {
		return false
	}
	ok := false
	for _, u := range urlVariants(fullURL) {
		want := Signature(authToken, u, params)
		if subtle.ConstantTimeCompare([]byte(want), []byte(signature)) == 1 {
			ok = true
		}
	}
	return ok
}

// urlVariants returns fullURL with a port (its own, else the scheme's
// default) and without one.
func urlVariants(fullURL string) []string {
	u, err := url.Parse(fullURL)
	if err != nil || u.Host == "" {
		return []string{fullURL}
	}
	if u.Port() != "" {
		without := *u
		without.Host = u.Hostname()
		return []string{fullURL, without.String()}
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	with := *u
	with.Host = u.Host + ":" + port
	return []string{with.String(), fullURL}
}
