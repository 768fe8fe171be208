package signature_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/paylane/paylane/webhook-svc/internal/signature"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// The independent Standard Webhooks library verifies what Sign produces,
// with each of the keys when there are two.
func TestLibraryVerifiesSignatures(t *testing.T) {
	t.Parallel()
	current, _ := webhook.NewSecret()
	previous, _ := webhook.NewSecret()
	unrelated, _ := webhook.NewSecret()
	ck, _ := webhook.SecretKey(current)
	pk, _ := webhook.SecretKey(previous)
	body := []byte(`{"id":"01J","type":"contact.created","created_at":"2026-11-22T01:21:17.123Z","data":{}}`)
	h := http.Header{}
	signature.SetHeaders(h, "01JEVENT", time.Now(), body, ck, pk)
	// As a receiver sees them: header names canonicalised by the server.
	received := http.Header{}
	for k, v := range h {
		received[http.CanonicalHeaderKey(k)] = v
	}
	if n := len(strings.Fields(received.Get("Webhook-Signature"))); n != 2 {
		t.Fatalf("%d signatures, want 2", n)
	}
	for name, secret := range map[string]string{"current": current, "previous": previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, received); err != nil {
			t.Errorf("%s secret: %v", name, err)
		}
		if err := wh.Verify(bytes.ToUpper(body), received); err == nil {
			t.Errorf("%s secret verified a changed body", name)
		}
	}
	wh, _ := standardwebhooks.NewWebhook(unrelated)
	if err := wh.Verify(body, received); err == nil {
		t.Error("an unrelated secret verified")
	}
}
