package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	paylane "github.com/paylane/paylane/sdk/go"
)

// TestSDKEndToEnd drives the stack through the generated Go SDK as an
// integrator would: register a webhook endpoint, create a contact, a
// receivable and a payable, read them back and list them, cancel the
// receivable (and see the second cancel refused as an *APIError), suppress
// the number, submit a contacts batch. Then every delivery the endpoint
// received verifies with the Standard Webhooks library and with the SDK's
// ParseWebhook, decodes into its typed body naming the object, and matches
// the webhooks section of the served document with every object closed to
// undeclared fields.
func TestSDKEndToEnd(t *testing.T) {
	stack, e := startWithClient(t)
	ctx := context.Background()
	c, err := paylane.New(stack.info.GatewayURL, stack.info.DemoToken, paylane.WithHTTPClient(e.hc))
	if err != nil {
		t.Fatal(err)
	}
	rc := newWHReceiver(t, filepath.Join(stack.info.Root, "tls"))

	ep, err := c.CreateWebhookEndpointWithResponse(ctx, nil, paylane.WebhookEndpointInput{
		Name: "sdk receiver", Url: rc.url, SubscribedEvents: []paylane.WebhookSubscription{"*"},
	})
	sdkOK(t, "creating the webhook endpoint", err, ep.StatusCode(), ep.JSONDefault)
	if ep.JSON201 == nil || ep.JSON201.Data.SigningSecret == nil || !strings.HasPrefix(*ep.JSON201.Data.SigningSecret, "whsec_") {
		t.Fatalf("webhook endpoint answer %s: want a whsec_ signing secret", ep.Body)
	}

	first, last := "Grace", "Hopper"
	created, err := c.CreateContactWithResponse(ctx, nil, paylane.ContactInput{FirstName: &first, LastName: &last, Phone: "(415) 555-0177"})
	sdkOK(t, "creating the contact", err, created.StatusCode(), created.JSONDefault)
	contact := created.JSON201.Data
	if contact.Phone != "+14155550177" || contact.FirstName == nil || *contact.FirstName != first || contact.PhoneId == "" {
		t.Fatalf("created contact %s: want the phone in E.164 and the names", created.Body)
	}
	shown, err := c.ShowContactWithResponse(ctx, contact.Id, nil)
	sdkOK(t, "reading the contact", err, shown.StatusCode(), shown.JSONDefault)
	if got := shown.JSON200.Data; got.Id != contact.Id || got.Phone != contact.Phone || *got.LastName != last || got.OptInStatus != "none" {
		t.Errorf("contact read back %s, want %s with opt_in_status none", shown.Body, created.Body)
	}

	key, description := "sdk-invoice-1", "Invoice 1"
	input := paylane.TransactionItemInput{ContactId: &contact.Id, Amount: 4200, Description: &description}
	made, err := c.CreateReceivableWithResponse(ctx, &paylane.CreateReceivableParams{IdempotencyKey: &key}, input)
	sdkOK(t, "creating the receivable", err, made.StatusCode(), made.JSONDefault)
	receivable := made.JSON201.Data
	if receivable.Status != paylane.ReceivableStatusPending || receivable.Amount != 4200 || receivable.Currency != "USD" ||
		receivable.ContactId != contact.Id || receivable.PaymentLinkUrl == nil || receivable.TransactionId == receivable.Id {
		t.Fatalf("created receivable %s: want pending, 4200 USD, with a live link", made.Body)
	}
	replayed, err := c.CreateReceivableWithResponse(ctx, &paylane.CreateReceivableParams{IdempotencyKey: &key}, input)
	sdkOK(t, "replaying the create", err, replayed.StatusCode(), replayed.JSONDefault)
	if replayed.JSON201.Data.Id != receivable.Id || replayed.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay answered %s (Idempotent-Replayed %q), want receivable %s replayed",
			replayed.Body, replayed.HTTPResponse.Header.Get("Idempotent-Replayed"), receivable.Id)
	}
	list, err := c.ListReceivablesWithResponse(ctx, &paylane.ListReceivablesParams{ContactId: &contact.Id})
	sdkOK(t, "listing receivables", err, list.StatusCode(), list.JSONDefault)
	if len(list.JSON200.Data) != 1 || list.JSON200.Data[0].Id != receivable.Id || list.JSON200.Meta.Total != 1 {
		t.Errorf("receivables of the contact: %s, want exactly %s", list.Body, receivable.Id)
	}

	payable, err := c.CreatePayableWithResponse(ctx, nil, paylane.TransactionItemInput{ContactId: &contact.Id, Amount: 900})
	sdkOK(t, "creating the payable", err, payable.StatusCode(), payable.JSONDefault)
	if p := payable.JSON201.Data; p.Status != paylane.PayableStatusPending || p.Amount != 900 || p.Destination != nil {
		t.Errorf("created payable %s: want pending, 900, no destination", payable.Body)
	}

	// The link's SMS goes out before the number is suppressed, so it is sent.
	msg := rc.waitFor(t, func(b whBody) bool { return strings.HasPrefix(b.Type, "message.") })

	cancelled, err := c.CancelReceivableWithResponse(ctx, receivable.Id, nil, paylane.TxnEmptyActionInput{})
	sdkOK(t, "cancelling the receivable", err, cancelled.StatusCode(), cancelled.JSONDefault)
	if got := cancelled.JSON200.Data; got.Status != paylane.ReceivableStatusCancelled || got.PaymentLinkUrl != nil {
		t.Errorf("cancelled receivable %s: want cancelled without a link", cancelled.Body)
	}
	again, err := c.CancelReceivableWithResponse(ctx, receivable.Id, nil, paylane.TxnEmptyActionInput{})
	if err != nil {
		t.Fatal(err)
	}
	var apiErr *paylane.APIError
	if err := paylane.Check(again.StatusCode(), again.JSONDefault); !errors.As(err, &apiErr) ||
		apiErr.StatusCode != http.StatusUnprocessableEntity || apiErr.Code != "invalid_transition" ||
		apiErr.Details["from"] != "cancelled" || apiErr.Details["to"] != "cancelled" || apiErr.RequestID == "" {
		t.Errorf("second cancel: %v (%s), want a 422 invalid_transition cancelled -> cancelled", err, again.Body)
	}

	sms := paylane.SuppressionInputChannelSms
	suppressed, err := c.CreateSuppressionWithResponse(ctx, nil, paylane.SuppressionInput{
		ContactPhoneId: contact.PhoneId, Reason: paylane.SuppressionInputReasonManual, Channel: &sms,
	})
	sdkOK(t, "suppressing the number", err, suppressed.StatusCode(), suppressed.JSONDefault)
	if s := suppressed.JSON201.Data; s.PhoneLast4 != "0177" || s.Source != paylane.SuppressionEntrySourceApi {
		t.Errorf("suppression entry %s: want phone_last4 0177 and source api", suppressed.Body)
	}

	batch, err := c.SubmitContactsBatchWithResponse(ctx, nil, paylane.ContactsBatchInput{Items: []map[string]any{
		{"external_id": "sdk-batch-1", "first_name": "Katherine", "phone": "+14155550178"},
	}})
	sdkOK(t, "submitting a contacts batch", err, batch.StatusCode(), batch.JSONDefault)
	if b := batch.JSON202.Data; b.Type != paylane.BatchTypeContacts || b.TotalItems != 1 || !b.Options.SuppressWebhooks {
		t.Errorf("batch header %s: want a contacts batch of 1 item, webhooks summarised", batch.Body)
	}

	// Every event above reaches the endpoint, signed, typed, and as documented.
	wh, err := standardwebhooks.NewWebhook(*ep.JSON201.Data.SigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	schemas := webhookSchemas(t, e, stack.info.DemoToken)
	want := map[string]string{
		"contact.created":         contact.Id,
		"receivable.created":      receivable.Id,
		"receivable.cancelled":    receivable.Id,
		"receivable.updated":      receivable.Id,
		"payable.created":         payable.JSON201.Data.Id,
		"suppression.created":     suppressed.JSON201.Data.Id,
		"contact.batch.completed": batch.JSON202.Data.Id,
		msg.body.Type:             msg.body.Data.ID,
	}
	for typ, id := range want {
		got := rc.waitFor(t, func(b whBody) bool { return b.Type == typ && b.Data.ID == id })
		if err := wh.Verify(got.raw, got.header); err != nil {
			t.Errorf("%s: the Standard Webhooks library rejects the delivery: %v", typ, err)
		}
		var body any
		if err := json.Unmarshal(got.raw, &body); err != nil {
			t.Fatal(err)
		}
		if schemas[typ] == nil {
			t.Errorf("%s: no webhook in the served document", typ)
		} else if err := schemas[typ].VisitJSON(body, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
			t.Errorf("%s: the delivery does not match the document's webhooks section: %v\nbody: %s", typ, err, got.raw)
		}
		event, err := paylane.ParseWebhook(*ep.JSON201.Data.SigningSecret, got.header, got.raw, time.Now())
		if err != nil {
			t.Fatalf("%s: paylane.ParseWebhook refuses the delivery: %v", typ, err)
		}
		checkTypedEvent(t, typ, event, id)
	}
}

// checkTypedEvent checks that a delivery's type picks the typed body naming
// id.
func checkTypedEvent(t *testing.T, typ string, event *paylane.WebhookEvent, id string) {
	t.Helper()
	v, err := event.ValueByDiscriminator()
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	var gotType, gotID string
	switch ev := v.(type) {
	case paylane.ContactEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
	case paylane.ReceivableEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
	case paylane.PayableEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
	case paylane.MessageEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
	case paylane.SuppressionEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
	case paylane.BatchCompletedEvent:
		gotType, gotID = string(ev.Type), ev.Data.Id
		if ev.Data.Status != paylane.BatchStatusCompleted || ev.Data.SucceededItems != 1 {
			t.Errorf("%s: batch %s is %s with %d rows written, want completed with 1", typ, id, ev.Data.Status, ev.Data.SucceededItems)
		}
	default:
		t.Fatalf("%s: decoded as %T", typ, v)
	}
	if gotType != typ || gotID != id {
		t.Errorf("%s: typed body says %s of %s, want %s", typ, gotType, gotID, id)
	}
}

// webhookSchemas reads the served document and returns each webhook's body
// schema, every object in them closed to properties it does not declare.
func webhookSchemas(t *testing.T, e *e2e, token string) map[string]*openapi3.Schema {
	t.Helper()
	r := e.get(t, "/api/v1/openapi.json", token)
	doc, err := openapi3.NewLoader().LoadFromData(r.body)
	if err != nil {
		t.Fatalf("loading the served document: %v", err)
	}
	out := map[string]*openapi3.Schema{}
	var roots []*openapi3.SchemaRef
	for name, item := range doc.Webhooks {
		if item.Post == nil || item.Post.RequestBody == nil || item.Post.RequestBody.Value == nil {
			continue
		}
		if mt := item.Post.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			roots = append(roots, mt.Schema)
			out[name] = mt.Schema.Value
		}
	}
	closeSchemas(roots)
	return out
}

// sdkOK fails the test when a call through the SDK errs or answers outside
// 2xx, naming the error envelope.
func sdkOK(t *testing.T, what string, err error, status int, envelope *paylane.Error) {
	t.Helper()
	if err == nil {
		err = paylane.Check(status, envelope)
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
