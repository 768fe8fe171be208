package paylane

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's webhook-timestamp may be from the
// receiver's clock: older deliveries are refused as possible replays.
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook and ParseWebhook.
var (
	// ErrWebhookSignature: no signature of the delivery is the one the
	// secret makes (a forged or altered body, or another endpoint's secret).
	ErrWebhookSignature = errors.New("paylane: no webhook signature matches")
	// ErrWebhookTimestamp: webhook-timestamp is missing, malformed or
	// outside WebhookTolerance of now.
	ErrWebhookTimestamp = errors.New("paylane: webhook timestamp outside the tolerance")
)

// VerifyWebhook checks a delivery as Standard Webhooks v1 signs it: one of the
// space-separated `v1,<base64>` values of webhook-signature must be the
// HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by secret
// (the endpoint's signing_secret, `whsec_...`), compared in constant time;
// after rotate-secret either secret's signature is accepted for 24 h, so
// either secret verifies. body is the request body exactly as received.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return fmt.Errorf("paylane: the signing secret is not whsec_ and base64")
	}
	id, ts := header.Get("webhook-id"), header.Get("webhook-timestamp")
	if id == "" {
		return fmt.Errorf("%w: no webhook-id", ErrWebhookSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrWebhookTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return ErrWebhookTimestamp
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(header.Get("webhook-signature")) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}

// ParseWebhook verifies a delivery (VerifyWebhook) and decodes its body; the
// body's id must be the webhook-id it was signed with. Then
// event.ValueByDiscriminator() gives the typed body. Answer 2xx quickly and
// de-duplicate on the id: a delivery may come more than once.
func ParseWebhook(secret string, header http.Header, body []byte, now time.Time) (*WebhookEvent, error) {
	if err := VerifyWebhook(secret, header, body, now); err != nil {
		return nil, err
	}
	var event WebhookEvent
	if err := json.Unmarshal(body, &event); err != nil {
		return nil, fmt.Errorf("paylane: decoding the webhook body: %w", err)
	}
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &head); err != nil || head.ID != header.Get("webhook-id") {
		return nil, fmt.Errorf("%w: the body's id is not the webhook-id", ErrWebhookSignature)
	}
	return &event, nil
}
