package openapi_test

import (
	"net/http"
	"testing"
)

// TestServedDocumentListsThePaymentRail: the payment-rail routes are API
// paths, and Stripe's callback, which is not under /api/v1, is in the
// document's x-paylane-callbacks under its public path.
func TestServedDocumentListsThePaymentRail(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	item := doc.Paths.Find("/payment-rail")
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if item == nil || item.GetOperation(m) == nil {
			t.Errorf("%s /payment-rail is not in the served document", m)
		}
	}
	callbacks, ok := doc.Extensions["x-paylane-callbacks"].(map[string]any)
	if !ok {
		t.Fatal("the served document has no x-paylane-callbacks")
	}
	hook, ok := callbacks["/webhooks/rails/stripe/{rail}"].(map[string]any)
	if !ok {
		t.Fatal("Stripe's rail callback is not in the served document")
	}
	post, _ := hook["post"].(map[string]any)
	responses, _ := post["responses"].(map[string]any)
	if post["operationId"] != "receiveStripeRailEvent" || responses["401"] == nil || responses["200"] == nil {
		t.Errorf("the callback's operation: %v", post)
	}
}
