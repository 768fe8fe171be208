package openapi_test

import (
	"net/http"
	"testing"
)

// TestServedDocumentListsThePaymentRail: the payment-rail routes are API
// paths, and Stripe's callback, which is not under /api/v1, is a webhook
// of the document with its public path.
func TestServedDocumentListsThePaymentRail(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	item := doc.Paths.Find("/payment-rail")
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if item == nil || item.GetOperation(m) == nil {
			t.Errorf("%s /payment-rail is not in the served document", m)
		}
	}
	hook := doc.Webhooks["stripeRailEvent"]
	if hook == nil || hook.Post == nil {
		t.Fatal("the Stripe rail webhook is not in the served document")
	}
	if got := hook.Post.Extensions["x-paylane-path"]; got != "/webhooks/rails/stripe/{rail}" {
		t.Errorf("x-paylane-path = %v", got)
	}
	if hook.Post.Responses.Value("401") == nil {
		t.Error("401 invalid_signature is not documented")
	}
}
