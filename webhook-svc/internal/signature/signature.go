// Package signature signs webhook deliveries the Standard Webhooks v1 way
// (contract section 9): webhook-id, webhook-timestamp and webhook-signature
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>", one signature per key,
// space-separated.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of Standard Webhooks.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Sign returns the webhook-signature value for a message signed with every
// key in keys (the current secret first, then the previous one during its
// grace period).
func Sign(id string, ts time.Time, body []byte, keys ...[]byte) string {
	prefix := id + "." + strconv.FormatInt(ts.Unix(), 10) + "."
	sigs := make([]string, 0, len(keys))
	for _, key := range keys {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(prefix))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " ")
}

// SetHeaders sets the three Standard Webhooks headers on h, spelt in lower
// case on the wire as the specification writes them (header names are
// case-insensitive; receivers' lookups find them either way).
func SetHeaders(h http.Header, id string, ts time.Time, body []byte, keys ...[]byte) {
	h[HeaderID] = []string{id}
	h[HeaderTimestamp] = []string{strconv.FormatInt(ts.Unix(), 10)}
	h[HeaderSignature] = []string{Sign(id, ts, body, keys...)}
}
