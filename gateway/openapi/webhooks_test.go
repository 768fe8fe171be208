package openapi_test

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/events"
)

// TestWebhooksListTheEventCatalog: the webhooks section names every public
// event type and nothing else, each with a typed body whose `type` admits
// that event; the WebhookEventType enum (what endpoints subscribe to) is the
// same list.
func TestWebhooksListTheEventCatalog(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	want := slices.Clone(events.Catalog())
	sort.Strings(want)
	var got []string
	for name := range doc.Webhooks {
		got = append(got, name)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("webhooks differ from events.Catalog (-want +got):\n%s", diff)
	}
	var enum []string
	for _, v := range doc.Components.Schemas["WebhookEventType"].Value.Enum {
		enum = append(enum, v.(string))
	}
	sort.Strings(enum)
	if diff := cmp.Diff(want, enum); diff != "" {
		t.Errorf("WebhookEventType differs from events.Catalog (-want +got):\n%s", diff)
	}
	// WebhookEvent, the union a client decodes any delivery into, maps each
	// type to the schema of its webhook.
	union := doc.Components.Schemas["WebhookEvent"].Value
	if union.Discriminator == nil || union.Discriminator.PropertyName != "type" {
		t.Fatal("WebhookEvent has no discriminator on type")
	}
	var mapped []string
	for typ, ref := range union.Discriminator.Mapping {
		mapped = append(mapped, typ)
		item := doc.Webhooks[typ]
		if item == nil || item.Post == nil || item.Post.RequestBody == nil {
			continue
		}
		if mt := item.Post.RequestBody.Value.Content.Get("application/json"); mt == nil || mt.Schema.Ref != ref.Ref {
			t.Errorf("WebhookEvent maps %s to %s, its webhook's body is another schema", typ, ref.Ref)
		}
	}
	sort.Strings(mapped)
	if diff := cmp.Diff(want, mapped); diff != "" {
		t.Errorf("WebhookEvent's discriminator mapping differs from events.Catalog (-want +got):\n%s", diff)
	}
	for name, item := range doc.Webhooks {
		body := webhookBody(t, doc, name)
		if body == nil {
			continue
		}
		for _, field := range []string{"id", "type", "created_at", "data"} {
			if !slices.Contains(body.Required, field) {
				t.Errorf("webhook %s: %s is not required in the body", name, field)
			}
		}
		typ := body.Properties["type"]
		if typ == nil || typ.Value == nil || !slices.Contains(typ.Value.Enum, any(name)) {
			t.Errorf("webhook %s: the body's type does not admit %q", name, name)
		}
		if data := body.Properties["data"]; data == nil || data.Ref == "" {
			t.Errorf("webhook %s: data is not a named schema", name)
		}
		if item.Post.OperationID == "" || item.Post.Responses.Value("200") == nil {
			t.Errorf("webhook %s: no operationId or no 200 response", name)
		}
	}
}

// TestEventPayloadsMatchTheirWebhookSchemas renders the payload types of
// libs/events, the ones producers publish and webhook-svc delivers as they
// are, into delivery bodies and validates them against the webhooks section
// with every object closed, so a field added to an event but not to the
// document fails here.
func TestEventPayloadsMatchTheirWebhookSchemas(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 1, 21, 17, 123456000, time.UTC)
	ts := apitime.Format(now)
	str := func(s string) *string { return &s }
	code := "01JD3X0Q4Z8W2E5R7T9Y1U3I5C"
	receivable := events.Receivable{
		ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5R", TransactionID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5T", ContactID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5K",
		ExternalID: str("inv-42"), Amount: 4200, Currency: "USD", Description: str("Invoice 42"), DueDate: str("2026-12-01"),
		Status: "pending", PaymentLinkURL: str("https://pay.example/l/r/01JD3X0Q4Z8W2E5R7T9Y1U3I5R?expires=1&signature=ab"),
		LinkExpiresAt: &ts, CustomFields: map[string]json.RawMessage{"po": json.RawMessage(`"A-1"`)},
		LatestMessage: &events.LatestMessage{Status: "sent", Channel: "sms", SentAt: &ts}, CreatedAt: ts, UpdatedAt: ts,
		Rail: "stripe", ProviderReference: str("cs_test_1"),
	}
	payable := events.Payable{
		ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5P", TransactionID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5T", ContactID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5K",
		Amount: 900, Currency: "USD", Status: "destination_selected", CustomFields: map[string]json.RawMessage{},
		Destination: &events.Destination{Type: "bank_account", Last4: "6789"}, FailureReason: str("identity_check_failed"),
		Rail: "sandbox", CreatedAt: ts, UpdatedAt: ts,
	}
	tests := []struct {
		typ  string
		data any
	}{
		{events.TypeReceivableCreated, receivable},
		{events.TypeReceivablePaymentFailed, receivable},
		{events.TypePayableDestinationSelected, payable},
		{events.TypeTransactionCampaignAssigned, events.CampaignAssigned{
			TransactionID: receivable.TransactionID, Direction: "receivable", ReceivableID: receivable.ID, ContactID: receivable.ContactID,
			CampaignID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5A", Automatic: true, AssignedAt: ts,
		}},
		{events.TypeMessageSent, events.Message{
			ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5M", NotificationID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5N", TransactionID: receivable.TransactionID,
			ContactID: receivable.ContactID, Channel: "sms", Status: "sent", ToLast4: "0123", SentAt: &now, CreatedAt: now, UpdatedAt: now,
		}},
		{events.TypeMessageFailed, events.Message{
			ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5M", Channel: "sms", Status: "failed", ToLast4: "0123", FailureReason: "notification_unavailable",
			CreatedAt: now, UpdatedAt: now,
		}},
		{events.TypeOptInConfirmed, events.OptIn{
			ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5O", ContactID: receivable.ContactID, OptInCodeID: &code, Status: "confirmed", Channel: "sms",
			ConsentedAt: now, ConfirmedAt: &now, CreatedAt: now,
		}},
		{events.TypeSuppressionCreated, events.Suppression{
			ID: "01JD3X0Q4Z8W2E5R7T9Y1U3I5S", PhoneLast4: "0123", Reason: "manual", Channel: "sms", Source: "inbound_stop", CreatedAt: now,
		}},
	}
	doc := loadDoc(t)
	closeWebhookBodies(doc)
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			body := deliveryBody(t, tc.typ, tc.data)
			if err := webhookBody(t, doc, tc.typ).VisitJSON(body, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
				t.Errorf("%s does not match its webhook schema: %v\nbody: %v", tc.typ, err, body)
			}
		})
	}
	// The closed schemas refuse what they must: a field no event declares,
	// and another domain's type.
	body := deliveryBody(t, events.TypeReceivableCreated, receivable)
	body["data"].(map[string]any)["surprise"] = 1
	if err := webhookBody(t, doc, events.TypeReceivableCreated).VisitJSON(body, openapi3.EnableJSONSchema2020()); err == nil {
		t.Error("a receivable body with an undeclared field passed the closed schema")
	}
	body = deliveryBody(t, events.TypeReceivableCreated, receivable)
	if err := webhookBody(t, doc, events.TypePayableCreated).VisitJSON(body, openapi3.EnableJSONSchema2020()); err == nil {
		t.Error("a receivable.created body passed as a payable.* body")
	}
}

// deliveryBody renders data as webhook-svc delivers an event of typ:
// {id, type, created_at, data}, decoded as a JSON value.
func deliveryBody(t *testing.T, typ string, data any) map[string]any {
	t.Helper()
	env, err := events.New(typ, "tenant", "", data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(map[string]any{"id": env.ID, "type": env.Type, "created_at": apitime.Format(env.OccurredAt), "data": env.Data})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// webhookBody returns the request body schema of webhook name.
func webhookBody(t *testing.T, doc *openapi3.T, name string) *openapi3.Schema {
	t.Helper()
	item := doc.Webhooks[name]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil || item.Post.RequestBody.Value == nil {
		t.Errorf("webhook %s: no POST with a request body", name)
		return nil
	}
	mt := item.Post.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		t.Errorf("webhook %s: no application/json schema", name)
		return nil
	}
	return mt.Schema.Value
}

// closeWebhookBodies sets unevaluatedProperties: false on every object
// schema reachable from a webhook body that lists properties or composes
// with allOf and says nothing of others, except allOf/anyOf/oneOf branches
// (whose siblings' properties they cannot see): JSON Schema 2020-12 sees
// through allOf, so the composed schema closes the whole.
func closeWebhookBodies(doc *openapi3.T) {
	branch, seen := map[*openapi3.Schema]bool{}, map[*openapi3.Schema]bool{}
	var all []*openapi3.Schema
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		all = append(all, s)
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, b := range group {
				if b != nil && b.Value != nil {
					branch[b.Value] = true
				}
				walk(b)
			}
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
	}
	for _, item := range doc.Webhooks {
		for _, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			for _, mt := range op.RequestBody.Value.Content {
				walk(mt.Schema)
			}
		}
	}
	closed := false
	for _, s := range all {
		if branch[s] || (len(s.Properties) == 0 && len(s.AllOf) == 0) ||
			s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil ||
			s.UnevaluatedProperties.Has != nil || s.UnevaluatedProperties.Schema != nil {
			continue
		}
		s.UnevaluatedProperties = openapi3.BoolSchema{Has: &closed}
	}
}
