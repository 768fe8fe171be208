package testsvc

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
)

// Publish writes events to their topics on the brokers, keyed by tenant, as
// another service's outbox relay would.
func Publish(t testing.TB, brokers []string, envs ...events.Envelope) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{},
		RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	for _, env := range envs {
		raw, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		msg := kafka.Message{Topic: events.TopicFor(env.Type), Key: []byte(env.TenantID), Value: raw}
		if err := w.WriteMessages(context.Background(), msg); err != nil {
			t.Fatalf("publishing %s: %v", env.Type, err)
		}
	}
}

// NewEvent builds an envelope, failing the test on error.
func NewEvent(t testing.TB, typ, tenantID string, data any) events.Envelope {
	t.Helper()
	env, err := events.New(typ, tenantID, "", data)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// Eventually polls cond until it holds, failing the test with what after
// 30 s (a bound for a stuck test, not a timing assertion).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
