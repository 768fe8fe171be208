package paylane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	paylane "github.com/paylane/paylane/sdk/go"
)

// Collect a payment: create the contact, then a receivable; Paylane texts the
// contact a payment link. PAYLANE_URL is the deployment's host and
// PAYLANE_TOKEN a token with api:create-contact and api:create-receivable
// (the local stack: gateway_url and demo_token of .paylane/devstack.json, and
// an http.Client trusting its CA through paylane.WithHTTPClient).
func Example() {
	ctx := context.Background()
	c, err := paylane.New(os.Getenv("PAYLANE_URL"), os.Getenv("PAYLANE_TOKEN"))
	if err != nil {
		log.Fatal(err)
	}

	first := "Ada"
	contact, err := c.CreateContactWithResponse(ctx, nil, paylane.ContactInput{FirstName: &first, Phone: "+14155550123"})
	if err == nil {
		err = paylane.Check(contact.StatusCode(), contact.JSONDefault)
	}
	if err != nil {
		log.Fatal(err)
	}

	// An Idempotency-Key makes the create safe to retry after a timeout.
	key, description := "invoice-42", "Invoice 42"
	receivable, err := c.CreateReceivableWithResponse(ctx, &paylane.CreateReceivableParams{IdempotencyKey: &key},
		paylane.TransactionItemInput{ContactId: &contact.JSON201.Data.Id, Amount: 4200, Description: &description})
	if err == nil {
		err = paylane.Check(receivable.StatusCode(), receivable.JSONDefault)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(receivable.JSON201.Data.Status)
}

// A webhook receiver: ParseWebhook verifies the delivery's signature with the
// endpoint's signing secret and decodes it; the event's type picks its typed
// body.
func ExampleParseWebhook() {
	secret := os.Getenv("PAYLANE_WEBHOOK_SECRET") // the endpoint's signing_secret, whsec_...
	mux := http.NewServeMux()
	mux.HandleFunc("/paylane-hooks", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		event, err := paylane.ParseWebhook(secret, r.Header, body, time.Now())
		if err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		v, err := event.ValueByDiscriminator()
		if err != nil {
			http.Error(w, "unknown event", http.StatusBadRequest)
			return
		}
		if paid, ok := v.(paylane.ReceivableEvent); ok && paid.Type == paylane.ReceivableEventTypeReceivablePaid {
			log.Printf("receivable %s paid", paid.Data.Id) // de-duplicate on paid.Id: deliveries may repeat
		}
		w.WriteHeader(http.StatusNoContent)
	})
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// A delivery decodes into WebhookEvent; its type picks the typed body. Verify
// it first (ParseWebhook does both).
func ExampleWebhookEvent() {
	body := []byte(`{"id":"01JD3X0Q4Z8W2E5R7T9Y1U3I5O","type":"receivable.paid","created_at":"2026-11-22T01:21:17.123Z",
	 "data":{"id":"01JD3X0Q4Z8W2E5R7T9Y1U3I5R","transaction_id":"01JD3X0Q4Z8W2E5R7T9Y1U3I5T","contact_id":"01JD3X0Q4Z8W2E5R7T9Y1U3I5K",
	  "external_id":null,"amount":4200,"currency":"USD","description":"Invoice 42","due_date":null,"status":"paid",
	  "payment_link_url":null,"link_expires_at":null,"send_at":null,"campaign_id":null,"custom_fields":{},
	  "payer_verified_at":null,"paid_at":"2026-11-22T01:21:17.100Z","payment_method":"card","failure_reason":null,
	  "latest_message":null,"created_at":"2026-11-22T01:20:00.000Z","updated_at":"2026-11-22T01:21:17.100Z"}}`)

	var event paylane.WebhookEvent
	if err := json.Unmarshal(body, &event); err != nil {
		log.Fatal(err)
	}
	v, err := event.ValueByDiscriminator()
	if err != nil {
		log.Fatal(err)
	}
	switch e := v.(type) {
	case paylane.ReceivableEvent:
		fmt.Println(e.Type, e.Data.Id, e.Data.Amount, e.Data.Currency, *e.Data.PaymentMethod)
	case paylane.ContactEvent:
		fmt.Println(e.Type, e.Data.Id)
	}
	// Output: receivable.paid 01JD3X0Q4Z8W2E5R7T9Y1U3I5R 4200 USD card
}
