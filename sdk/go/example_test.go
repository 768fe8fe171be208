package paylane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

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

// A delivery to a webhook endpoint decodes into WebhookEvent; its type picks
// the typed body. Verify the webhook-signature header before trusting it
// (Standard Webhooks v1; docs/api.md).
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
