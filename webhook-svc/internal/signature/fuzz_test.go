package signature_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/paylane/paylane/webhook-svc/internal/signature"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// FuzzSign: whatever the event id, body and key, Sign never panics, the
// independent Standard Webhooks library verifies the delivery with the
// secret the key belongs to, and refuses it once the body changes; the
// secret's key reads back as the key.
func FuzzSign(f *testing.F) {
	f.Add("01JEVENT", []byte(`{"id":"01J","data":{}}`), []byte("0123456789abcdef0123456789abcdef"))
	f.Add("e", []byte{}, []byte{1})
	f.Add("id.with.dots", []byte("body\x00with\xffbytes"), bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, id string, body, key []byte) {
		if len(key) == 0 || id == "" || strings.ContainsAny(id, "\r\n") {
			return // secrets are 32 random bytes; ids are ULIDs
		}
		secret := webhook.SecretPrefix + base64.StdEncoding.EncodeToString(key)
		back, err := webhook.SecretKey(secret)
		if err != nil || !bytes.Equal(back, key) {
			t.Fatalf("SecretKey(%q) = %x, %v; want %x", secret, back, err, key)
		}
		h := http.Header{}
		signature.SetHeaders(h, id, time.Now(), body, key)
		received := http.Header{}
		for k, v := range h {
			received[http.CanonicalHeaderKey(k)] = v
		}
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatalf("NewWebhook: %v", err)
		}
		if err := wh.Verify(body, received); err != nil {
			t.Fatalf("the library refused id %q body %q: %v", id, body, err)
		}
		if err := wh.Verify(append(bytes.Clone(body), 'x'), received); err == nil {
			t.Fatalf("the library verified a changed body")
		}
	})
}
