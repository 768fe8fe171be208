package transactionssvc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	transactions "github.com/paylane/paylane/transactions-svc"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// start runs the service with Run, as a deployment does, until the test ends.
func start(t *testing.T, env *testenv.Env, brokers []string) svcrun.Addrs {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "transactions_run", migrations.Sets()...)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := transactions.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", DatabaseURL: dsn, DBMaxConns: 4,
			KafkaBrokers: brokers, IdentityURL: env.IdentityURL},
		ContactsURL:     env.ContactsURL,
		ContactsTimeout: 5 * time.Second, LinkKey: testenv.LinkKey(), PublicBaseURL: testenv.PublicBaseURL,
		SchedulerInterval: 50 * time.Millisecond,
	}
	go func() { done <- transactions.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready <- a })) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return a
	case err := <-done:
		t.Fatalf("Run stopped before it was ready: %v", err)
	}
	return svcrun.Addrs{}
}

func call(t *testing.T, method, url, token, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestRunServesPublishesAndConsumes runs the whole service: the API and the
// pages on the HTTP listener, probes on the internal one, events through
// the outbox relay to Kafka, and message.* events back into latest_message.
func TestRunServesPublishesAndConsumes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	brokers := testkit.Broker(t)
	a := start(t, env, brokers)
	base := "http://" + a.HTTP
	tenant := ids.New()
	token := env.Token(t, tenant)
	contact := env.Contact(t, tenant, "c1", "Ada", "+14155550123")

	if status, _ := call(t, http.MethodGet, "http://"+a.Internal+"/healthz", "", ""); status != http.StatusOK {
		t.Fatalf("healthz %d", status)
	}
	if status, _ := call(t, http.MethodGet, base+"/api/v1/receivables", "", ""); status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", status)
	}
	if status, _ := call(t, http.MethodGet, base+"/l/r/"+contact.ID+"?expires=1&signature=00", "", ""); status != http.StatusUnauthorized {
		t.Fatalf("bad link: %d", status)
	}
	status, body := call(t, http.MethodPost, base+"/api/v1/receivables", token, `{"contact_id":"`+contact.ID+`","amount":900}`)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	var created struct{ Data events.Receivable }
	_ = json.Unmarshal(body, &created)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := readUntil(ctx, t, brokers, events.TopicTransactions, tenant, 2)
	if got[0].Type != "receivable.created" || got[1].Type != "notification.requested" {
		t.Fatalf("published %s, %s", got[0].Type, got[1].Type)
	}
	sent := time.Now().UTC()
	produce(ctx, t, brokers, tenant, events.Message{ID: ids.New(), TransactionID: created.Data.TransactionID,
		Channel: "sms", Status: "delivered", SentAt: &sent, CreatedAt: sent, UpdatedAt: sent})
	for {
		_, body = call(t, http.MethodGet, base+"/api/v1/receivables/"+created.Data.ID, token, "")
		var shown struct{ Data events.Receivable }
		_ = json.Unmarshal(body, &shown)
		if m := shown.Data.LatestMessage; m != nil && m.Status == "delivered" && m.Channel == "sms" && m.SentAt != nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("latest_message never arrived: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readUntil(ctx context.Context, t *testing.T, brokers []string, topic, tenant string, n int) []events.Envelope {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: "test-" + ids.New(), Topic: topic,
		StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	var out []events.Envelope
	for len(out) < n {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s: %v", topic, err)
		}
		var env events.Envelope
		if err := json.Unmarshal(m.Value, &env); err != nil {
			t.Fatal(err)
		}
		if env.TenantID == tenant {
			out = append(out, env)
		}
	}
	return out
}

func produce(ctx context.Context, t *testing.T, brokers []string, tenant string, m events.Message) {
	t.Helper()
	env, err := events.New(events.TypeMessageDelivered, tenant, "", m)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(env)
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
	defer w.Close()
	// Twice: the second delivery is recognised (inbox) and changes nothing.
	for range 2 {
		if err := w.WriteMessages(ctx, kafka.Message{Topic: events.TopicMessages, Key: []byte(tenant), Value: raw}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	err := transactions.Config{}.Validate()
	for _, want := range []string{"HTTP_ADDR", "DATABASE_URL", "IDENTITY_URL", "CONTACTS_URL", "LINK_KEY", "PUBLIC_BASE_URL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
	t.Setenv("LINK_KEY", "not base64!")
	if _, err := transactions.ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "LINK_KEY") {
		t.Errorf("ConfigFromEnv with a bad LINK_KEY: %v", err)
	}
	if err := transactions.Run(context.Background(), transactions.Config{}); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Run with an empty config: %v", err)
	}
}
