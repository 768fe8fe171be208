package webhooksvc_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// publish writes events to their topics as producers' outbox relays do.
func publish(t *testing.T, brokers []string, envs ...events.Envelope) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
		BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
	defer w.Close()
	for _, env := range envs {
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		msg := kafka.Message{Topic: events.TopicFor(env.Type), Key: []byte(env.TenantID), Value: b}
		if err := w.WriteMessages(context.Background(), msg); err != nil {
			t.Fatalf("publishing %s: %v", env.Type, err)
		}
	}
}

func event(t *testing.T, typ, tenantID string, data any) events.Envelope {
	t.Helper()
	env, err := events.New(typ, tenantID, "", data)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

type deliveryJSON struct {
	ID             string  `json:"id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	Status         string  `json:"status"`
	AttemptCount   int     `json:"attempt_count"`
	ResponseStatus *int    `json:"response_status"`
	DeliveredAt    *string `json:"delivered_at"`
	Attempts       []struct {
		Number int    `json:"number"`
		Status string `json:"status"`
	} `json:"attempts"`
}

type deliveriesJSON struct {
	Data  []deliveryJSON
	Links struct {
		Next *string `json:"next"`
	}
	Meta struct {
		Total    int `json:"total"`
		PerPage  int `json:"per_page"`
		LastPage int `json:"last_page"`
	}
}

// Events published on the topics reach a tenant's HTTPS receiver signed so
// the Standard Webhooks library verifies them, and the deliveries list
// shows each attempt.
func TestEventsFromKafkaAreDeliveredSigned(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	rc := testenv.NewReceiver(t, nil)
	svc := testenv.StartService(t, testenv.ServiceOptions{Brokers: brokers, Allow: testenv.Loopback(), Roots: rc.Roots()})
	tok := svc.Token(t, tenantA, allAbilities...)
	created := svc.Do(t, http.MethodPost, base, tok, map[string]any{
		"name": "local", "url": rc.URL(), "subscribed_events": []string{"contact.*", "receivable.paid"},
	})
	ep, _ := endpointOf(t, created)

	contact := event(t, "contact.created", tenantA, map[string]string{"id": "C1", "first_name": "Ada"})
	publish(t, brokers,
		event(t, "token.revoked", tenantA, map[string]int{"token_id": 1}),      // internal: never delivered
		event(t, "receivable.created", tenantA, map[string]string{"id": "R1"}), // not subscribed
		event(t, "contact.created", tenantB, map[string]string{"id": "C9"}),    // another tenant
		contact,
		event(t, "receivable.paid", tenantA, map[string]string{"id": "R1"}),
	)
	waitFor(t, func() bool { return len(rc.Requests()) >= 2 })

	wh, err := standardwebhooks.NewWebhook(*ep.SigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, r := range rc.Requests() {
		if err := wh.Verify(r.Body, r.Header); err != nil {
			t.Errorf("the library rejects a delivery: %v", err)
		}
		var body struct{ ID, Type string }
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		types[body.Type] = true
		if body.Type == "contact.created" && (body.ID != contact.ID || r.Header.Get("webhook-id") != contact.ID) {
			t.Errorf("contact.created: id %s, webhook-id %s; want the event id %s", body.ID, r.Header.Get("webhook-id"), contact.ID)
		}
	}
	if len(types) != 2 || !types["contact.created"] || !types["receivable.paid"] {
		t.Errorf("delivered types %v, want contact.created and receivable.paid", types)
	}

	var list deliveriesJSON
	waitFor(t, func() bool {
		svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries", tok, nil).Decode(t, &list)
		return list.Meta.Total == 2 && list.Data[0].Status == "succeeded" && list.Data[1].Status == "succeeded"
	})
	for _, d := range list.Data {
		if d.AttemptCount != 1 || len(d.Attempts) != 1 || d.Attempts[0].Status != "succeeded" ||
			d.ResponseStatus == nil || *d.ResponseStatus != http.StatusNoContent || d.DeliveredAt == nil {
			t.Errorf("delivery row %+v, want one succeeded attempt", d)
		}
	}
	var filtered deliveriesJSON
	svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries?event_type=receivable.paid&status=succeeded", tok, nil).Decode(t, &filtered)
	if filtered.Meta.Total != 1 || filtered.Data[0].EventType != "receivable.paid" {
		t.Errorf("filtered list = %+v, want the receivable.paid delivery", filtered)
	}
	var paged deliveriesJSON
	svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries?per_page=1", tok, nil).Decode(t, &paged)
	if len(paged.Data) != 1 || paged.Meta.LastPage != 2 || paged.Links.Next == nil || paged.Data[0].ID != list.Data[0].ID {
		t.Errorf("first page = %+v, want the newest of two pages", paged)
	}
	for _, q := range []string{"?status=delivered", "?event_type=token.revoked", "?per_page=0"} {
		if r := svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries"+q, tok, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("deliveries%s: %d, want 422", q, r.Status)
		}
	}
}

// waitFor polls cond until it holds, failing after a generous bound (a
// hang, not a timing assertion).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 45 s")
}
