package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/testkit"
)

const requestTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestTraceContextTravelsAsTheKafkaHeader: the trace of the transaction
// that wrote an event (Add and AddMany alike) reaches the Kafka message as
// its traceparent header; an event written outside any trace carries none.
func TestTraceContextTravelsAsTheKafkaHeader(t *testing.T) {
	t.Parallel()
	pool, brokers := newPool(t), testkit.Broker(t)
	traced := obs.WithTraceParent(context.Background(), requestTrace)

	one, err := events.New(events.TypeContactCreated, "T1", "req", map[string]string{"n": "1"})
	if err != nil {
		t.Fatal(err)
	}
	many1, _ := events.New(events.TypeContactUpdated, "T1", "req", map[string]string{"n": "2"})
	many2, _ := events.New(events.TypeContactUpdated, "T1", "req", map[string]string{"n": "3"})
	untraced, _ := events.New(events.TypeContactDeleted, "T1", "req", map[string]string{"n": "4"})
	err = pgx.BeginFunc(traced, pool, func(tx pgx.Tx) error {
		if err := outbox.Add(traced, tx, "", one); err != nil {
			return err
		}
		return outbox.AddMany(traced, tx, []events.Envelope{many1, many2})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return outbox.Add(context.Background(), tx, "", untraced)
	})
	if err != nil {
		t.Fatal(err)
	}
	startRelay(t, pool, brokers, nil)

	msgs := readUntil(t, brokers, events.TopicContacts, untraced.ID)
	if len(msgs) != 4 {
		t.Fatalf("got %d messages, want 4", len(msgs))
	}
	for i, m := range msgs[:3] {
		if got := header(m, "traceparent"); got != requestTrace {
			t.Errorf("message %d traceparent = %q, want the writer's %q", i, got, requestTrace)
		}
	}
	if got := header(msgs[3], "traceparent"); got != "" {
		t.Errorf("an event written outside a trace carries traceparent %q", got)
	}
}

func header(m kafka.Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// TestBacklogSeries: while no relay publishes, outbox_backlog counts the
// waiting rows and outbox_oldest_age_seconds grows with the oldest; a relay
// that runs with the service's telemetry registers the same series itself,
// and once it has published them the backlog is 0.
func TestBacklogSeries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	var last events.Envelope
	for range 3 {
		env, err := addEvent(ctx, pool, events.TypeContactCreated, "T1", true)
		if err != nil {
			t.Fatal(err)
		}
		last = env
	}
	if _, err := pool.Exec(ctx, "UPDATE outbox SET created_at = now() - interval '90 seconds' WHERE id = (SELECT min(id) FROM outbox)"); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(outbox.NewBacklogCollector(pool, "contacts-svc"))
	backlog, age := gatherBacklog(t, reg)
	if backlog != 3 {
		t.Errorf("outbox_backlog = %v, want 3", backlog)
	}
	if age < 90 || age > 600 {
		t.Errorf("outbox_oldest_age_seconds = %v, want the oldest row's age (90 s and a little)", age)
	}

	runReg := prometheus.NewRegistry()
	runCtx, cancel := context.WithCancel(obs.WithTelemetry(ctx, obs.Telemetry{Service: "contacts-svc", Registry: runReg}))
	done := make(chan error, 1)
	go func() { done <- outbox.NewRelay(pool, brokers, nil).Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	readUntil(t, brokers, events.TopicContacts, last.ID)
	waitPublished(t, pool)
	if backlog, age := gatherBacklog(t, runReg); backlog != 0 || age != 0 {
		t.Errorf("after publishing: backlog %v, oldest age %v; want 0 and 0 from the relay's own registration", backlog, age)
	}
}

// gatherBacklog reads both outbox series of contacts-svc from reg; it
// fails the test when either is missing.
func gatherBacklog(t *testing.T, reg *prometheus.Registry) (backlog, age float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "service" && l.GetValue() == "contacts-svc" {
						found[f.GetName()] = m.GetGauge().GetValue()
					}
				}
			}
		}
		b, okB := found["outbox_backlog"]
		a, okA := found["outbox_oldest_age_seconds"]
		if okB && okA {
			return b, a
		}
		if time.Now().After(deadline) { // the relay registers once it runs
			t.Fatalf("outbox series missing: %v", found)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
