package events_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/testkit"
)

const (
	producerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	producerParent = "00-" + producerTrace + "-00f067aa0ba902b7-01"
)

// TestConsumeContinuesTheProducersTraceAndReportsLag: three events wait on
// the topic before the group ever ran, so the brokers report a lag of 3 for
// it; Consume (with the service's telemetry on its context) registers that
// series itself, handles each event in a span of the trace its traceparent
// header names, and once it has committed them the lag is 0.
func TestConsumeContinuesTheProducersTraceAndReportsLag(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	var msgs []kafka.Message
	for _, header := range []string{producerParent, "", producerParent} {
		_, raw := envelope(t, "contact.created")
		m := kafka.Message{Topic: events.TopicContacts, Key: []byte("T1"), Value: raw}
		if header != "" {
			m.Headers = []kafka.Header{{Key: "traceparent", Value: []byte(header)}}
		}
		msgs = append(msgs, m)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{}, RequiredAcks: kafka.RequireAll,
		BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
	if err := w.WriteMessages(context.Background(), msgs...); err != nil {
		t.Fatal(err)
	}
	w.Close()

	const group = "trace-test"
	lag := prometheus.NewRegistry()
	lag.MustRegister(events.NewLagCollector(brokers, group, []string{events.TopicContacts}))
	if got := lagOf(t, lag, group, func(v float64) bool { return v == 3 }); got != 3 {
		t.Fatalf("lag before consuming = %v, want 3", got)
	}

	reg := prometheus.NewRegistry()
	ctx, cancel := context.WithCancel(obs.WithTelemetry(context.Background(), obs.Telemetry{Service: "test", Registry: reg}))
	var mu sync.Mutex
	var traces []string
	done := make(chan error, 1)
	go func() {
		done <- events.Consume(ctx, brokers, group, []string{events.TopicContacts}, nil,
			func(ctx context.Context, _ events.Envelope) error {
				mu.Lock()
				traces = append(traces, obs.TraceID(ctx))
				mu.Unlock()
				return nil
			})
	}()
	defer func() {
		cancel()
		<-done
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(traces)
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("handled %d events, want 3", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	got := append([]string(nil), traces...)
	mu.Unlock()
	if got[0] != producerTrace || got[2] != producerTrace {
		t.Errorf("traces = %v: events with a traceparent must be handled in the producer's trace %s", got, producerTrace)
	}
	if got[1] == "" || got[1] == producerTrace {
		t.Errorf("an event without traceparent was handled in trace %q, want a trace of its own", got[1])
	}
	if v := lagOf(t, reg, group, func(v float64) bool { return v == 0 }); v != 0 {
		t.Errorf("lag after consuming, from Consume's own registration = %v, want 0", v)
	}
}

// lagOf gathers events_consumer_lag of group on the contacts topic until
// done accepts it (commits reach the broker shortly after handling), or 15 s.
func lagOf(t *testing.T, reg *prometheus.Registry, group string, done func(float64) bool) float64 {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	last := -1.0
	for {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() != "events_consumer_lag" {
				continue
			}
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["group"] == group && labels["topic"] == events.TopicContacts {
					last = m.GetGauge().GetValue()
				}
			}
		}
		if (last >= 0 && done(last)) || time.Now().After(deadline) {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConsumeBatchContinuesATraceItsEventsShare: a batch whose events all
// carry one trace is handled in that trace; a batch mixing traces is
// handled in a trace of its own (linked to theirs), never in one of them.
func TestConsumeBatchContinuesATraceItsEventsShare(t *testing.T) {
	t.Parallel()
	const otherParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	for _, tc := range []struct {
		name    string
		headers []string
		same    bool
	}{
		{"one trace", []string{producerParent, producerParent, producerParent}, true},
		{"two traces", []string{producerParent, otherParent, producerParent}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			brokers := testkit.Broker(t)
			var msgs []kafka.Message
			for _, header := range tc.headers {
				_, raw := envelope(t, "contact.created")
				msgs = append(msgs, kafka.Message{Topic: events.TopicContacts, Key: []byte("T1"), Value: raw,
					Headers: []kafka.Header{{Key: "traceparent", Value: []byte(header)}}})
			}
			w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{}, RequiredAcks: kafka.RequireAll,
				BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
			if err := w.WriteMessages(context.Background(), msgs...); err != nil {
				t.Fatal(err)
			}
			w.Close()

			ctx, cancel := context.WithCancel(obs.WithTelemetry(context.Background(), obs.Telemetry{Service: "test"}))
			got := make(chan [2]any, 1)
			done := make(chan error, 1)
			go func() {
				// The batch closes when it holds every message, or after 5 s.
				limits := events.BatchLimits{Size: len(msgs), Wait: 5 * time.Second}
				done <- events.ConsumeBatch(ctx, brokers, "batch-trace-test", []string{events.TopicContacts}, limits, nil,
					func(ctx context.Context, envs []events.Envelope) error {
						select {
						case got <- [2]any{len(envs), obs.TraceID(ctx)}:
						default:
						}
						return nil
					})
			}()
			defer func() {
				cancel()
				<-done
			}()
			var first [2]any
			select {
			case first = <-got:
			case <-time.After(30 * time.Second):
				t.Fatal("no batch handled within 30 s")
			}
			n, trace := first[0].(int), first[1].(string)
			if n != len(msgs) {
				t.Fatalf("the first batch held %d events, want %d", n, len(msgs))
			}
			switch {
			case tc.same && trace != producerTrace:
				t.Errorf("batch of one trace handled in trace %q, want %s", trace, producerTrace)
			case !tc.same && (trace == "" || trace == producerTrace || trace == obs.TraceIDOf(otherParent)):
				t.Errorf("batch of two traces handled in trace %q, want a trace of its own", trace)
			}
		})
	}
}
