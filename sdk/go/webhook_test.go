package paylane_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	paylane "github.com/paylane/paylane/sdk/go"
)

// The Standard Webhooks reference vector: secret, id, timestamp, payload and
// the signature every implementation must produce.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = "1614265330"
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	signedAt := time.Unix(1614265330, 0)
	header := func(id, ts, sig string) http.Header {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		return h
	}
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   string
		now    time.Time
		want   error
	}{
		{"reference vector", vectorSecret, header(vectorID, vectorTimestamp, vectorSignature), vectorBody, signedAt, nil},
		{"second of two signatures (after rotate-secret)", vectorSecret,
			header(vectorID, vectorTimestamp, "v1,Zm9yZ2VkIGJ5IGFub3RoZXIgc2VjcmV0IGxlbmd0aDMy "+vectorSignature), vectorBody, signedAt.Add(4 * time.Minute), nil},
		{"body altered", vectorSecret, header(vectorID, vectorTimestamp, vectorSignature), `{"test": 2432232315}`, signedAt, paylane.ErrWebhookSignature},
		{"id altered", vectorSecret, header("msg_other", vectorTimestamp, vectorSignature), vectorBody, signedAt, paylane.ErrWebhookSignature},
		{"another secret", "whsec_" + "c2Vjb25kIHNlY3JldCBvZiBhbm90aGVyIGVuZHBvaW50IQ==", header(vectorID, vectorTimestamp, vectorSignature), vectorBody, signedAt, paylane.ErrWebhookSignature},
		{"unknown version", vectorSecret, header(vectorID, vectorTimestamp, "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="), vectorBody, signedAt, paylane.ErrWebhookSignature},
		{"no signature", vectorSecret, header(vectorID, vectorTimestamp, ""), vectorBody, signedAt, paylane.ErrWebhookSignature},
		{"too old", vectorSecret, header(vectorID, vectorTimestamp, vectorSignature), vectorBody, signedAt.Add(6 * time.Minute), paylane.ErrWebhookTimestamp},
		{"from the future", vectorSecret, header(vectorID, vectorTimestamp, vectorSignature), vectorBody, signedAt.Add(-6 * time.Minute), paylane.ErrWebhookTimestamp},
		{"timestamp not a number", vectorSecret, header(vectorID, "soon", vectorSignature), vectorBody, signedAt, paylane.ErrWebhookTimestamp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := paylane.VerifyWebhook(tc.secret, tc.header, []byte(tc.body), tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("VerifyWebhook = %v, want %v", err, tc.want)
			}
		})
	}
	if err := paylane.VerifyWebhook("whsec_not base64!", header(vectorID, vectorTimestamp, vectorSignature), []byte(vectorBody), signedAt); err == nil {
		t.Error("a secret that is not base64 verified")
	}
}

// ParseWebhook refuses a signed body whose id is not the webhook-id, so a
// body cannot be replayed under another event's id.
func TestParseWebhookNeedsTheSignedID(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", vectorTimestamp)
	h.Set("webhook-signature", vectorSignature)
	if _, err := paylane.ParseWebhook(vectorSecret, h, []byte(vectorBody), time.Unix(1614265330, 0)); !errors.Is(err, paylane.ErrWebhookSignature) {
		t.Errorf("ParseWebhook of a body without the signed id = %v, want ErrWebhookSignature", err)
	}
}
