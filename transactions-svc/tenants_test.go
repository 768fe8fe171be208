package transactions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// TestRunLearnsTenantNames: a tenant.updated event of identity-svc on
// paylane.identity.v1, published before the service runs, reaches the
// hosted pages of the service started with Run: its consumer group starts
// at the oldest retained event.
func TestRunLearnsTenantNames(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	brokers := testkit.Broker(t)
	tenant := ids.New()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ev, err := events.New(events.TypeTenantUpdated, tenant, "", map[string]any{
		"id": tenant, "name": "Acme Plumbing", "default_currency": "USD", "updated_at": time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ev)
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
	if err := w.WriteMessages(ctx, kafka.Message{Topic: events.TopicIdentity, Key: []byte(tenant), Value: raw}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	a := start(t, env, brokers)
	base := "http://" + a.HTTP
	contact := env.Contact(t, tenant, "c1", "Ada", "+14155550123")
	status, body := call(t, http.MethodPost, base+"/api/v1/receivables", env.Token(t, tenant), `{"contact_id":"`+contact.ID+`","amount":900}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	var created struct {
		Data struct {
			PaymentLinkURL string `json:"payment_link_url"`
		}
	}
	_ = json.Unmarshal(body, &created)
	page := base + strings.TrimPrefix(created.Data.PaymentLinkURL, testenv.PublicBaseURL)
	for {
		status, body = call(t, http.MethodGet, page, "", "")
		if status == http.StatusOK && strings.Contains(string(body), `<p class="payee" id="payee">Acme Plumbing</p>`) {
			return
		}
		if status != http.StatusOK || ctx.Err() != nil {
			t.Fatalf("the page never named the tenant: %d\n%s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
