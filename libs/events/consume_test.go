package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
)

func produce(t *testing.T, brokers []string, topic string, values ...[]byte) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{}, RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	for _, v := range values {
		// Key by one tenant: one partition, so the order below is the order consumed.
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte("T1"), Value: v}); err != nil {
			t.Fatal(err)
		}
	}
}

func envelope(t *testing.T, typ string) (events.Envelope, []byte) {
	t.Helper()
	env, err := events.New(typ, "T1", "", map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return env, raw
}

// consumer runs Consume in the background and records handled event types.
type consumer struct {
	mu     sync.Mutex
	seen   []string
	cancel context.CancelFunc
	done   chan error
}

func startConsumer(brokers []string, group string, handle func(events.Envelope) error) *consumer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &consumer{cancel: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- events.Consume(ctx, brokers, group, []string{events.TopicContacts}, nil,
			func(_ context.Context, env events.Envelope) error {
				if err := handle(env); err != nil {
					return err
				}
				c.mu.Lock()
				c.seen = append(c.seen, env.Type)
				c.mu.Unlock()
				return nil
			})
	}()
	return c
}

// waitFor waits until the consumer has handled n events and returns them.
func (c *consumer) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		seen := append([]string(nil), c.seen...)
		c.mu.Unlock()
		if len(seen) >= n {
			return seen
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("consumer handled %v, waiting for %d events", c.seen, n)
	return nil
}

func (c *consumer) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	if err := <-c.done; err != nil {
		t.Fatalf("Consume returned %v", err)
	}
}

func TestConsumeRetriesInOrderAndSkipsOnlyGarbage(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	_, first := envelope(t, "contact.created")
	_, second := envelope(t, "contact.updated")
	produce(t, brokers, events.TopicContacts, first, []byte("not json"), second)

	failures := 2
	c := startConsumer(brokers, "retry", func(env events.Envelope) error {
		if env.Type == "contact.created" && failures > 0 {
			failures--
			return errors.New("database unavailable")
		}
		return nil
	})
	got := c.waitFor(t, 2)
	c.stop(t)
	if diff := cmp.Diff([]string{"contact.created", "contact.updated"}, got); diff != "" {
		t.Fatalf("handled (-want +got):\n%s", diff)
	}
	if failures != 0 {
		t.Fatalf("handler failed %d times fewer than planned", failures)
	}
}

func TestConsumeCommitsHandledEvents(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	_, first := envelope(t, "contact.created")
	produce(t, brokers, events.TopicContacts, first)

	c := startConsumer(brokers, "commits", func(events.Envelope) error { return nil })
	c.waitFor(t, 1)
	c.stop(t)

	// The same group picks up after the committed offset: only the new event comes.
	_, second := envelope(t, "contact.deleted")
	produce(t, brokers, events.TopicContacts, second)
	c2 := startConsumer(brokers, "commits", func(events.Envelope) error { return nil })
	got := c2.waitFor(t, 1)
	c2.stop(t)
	if diff := cmp.Diff([]string{"contact.deleted"}, got); diff != "" {
		t.Fatalf("second run handled (-want +got):\n%s", diff)
	}
}

func TestConsumeNeedsConfiguration(t *testing.T) {
	t.Parallel()
	err := events.Consume(context.Background(), nil, "g", []string{"t"}, nil,
		func(context.Context, events.Envelope) error { return nil })
	if err == nil {
		t.Fatal("Consume without brokers returned nil")
	}
}
