package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
)

// Publish writes events to their topics on the brokers, keyed by tenant, as
// another service's outbox relay would.
func Publish(t testing.TB, brokers []string, envs ...events.Envelope) {
	t.Helper()
	if err := publish(brokers, envs...); err != nil {
		t.Fatal(err)
	}
}

// publish is Publish for callers off the test's goroutine.
func publish(brokers []string, envs ...events.Envelope) error {
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{},
		RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	for _, env := range envs {
		raw, err := json.Marshal(env)
		if err != nil {
			return err
		}
		msg := kafka.Message{Topic: events.TopicFor(env.Type), Key: []byte(env.TenantID), Value: raw}
		if err := w.WriteMessages(context.Background(), msg); err != nil {
			return fmt.Errorf("publishing %s: %w", env.Type, err)
		}
	}
	return nil
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

// Published returns every event on topic, partition by partition in offset
// order, up to the end each partition has when it is read (none when the
// topic does not exist yet).
func Published(t testing.TB, brokers []string, topic string) []events.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := kafka.DialContext(ctx, "tcp", brokers[0])
	if err != nil {
		t.Fatalf("dialing the broker: %v", err)
	}
	defer conn.Close()
	parts, err := conn.ReadPartitions(topic)
	if errors.Is(err, kafka.UnknownTopicOrPartition) {
		return nil
	}
	if err != nil {
		t.Fatalf("reading partitions of %s: %v", topic, err)
	}
	var out []events.Envelope
	for _, p := range parts {
		out = append(out, readPartition(ctx, t, brokers[0], topic, p.ID)...)
	}
	return out
}

// readPartition reads one partition from its first offset to its last.
func readPartition(ctx context.Context, t testing.TB, broker, topic string, partition int) []events.Envelope {
	t.Helper()
	conn, err := kafka.DialLeader(ctx, "tcp", broker, topic, partition)
	if err != nil {
		t.Fatalf("dialing the leader of %s/%d: %v", topic, partition, err)
	}
	defer conn.Close()
	first, last, err := conn.ReadOffsets()
	if err != nil {
		t.Fatalf("reading offsets of %s/%d: %v", topic, partition, err)
	}
	var out []events.Envelope
	for offset := first; offset < last; {
		if _, err := conn.Seek(offset, kafka.SeekAbsolute); err != nil {
			t.Fatalf("seeking %s/%d: %v", topic, partition, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		batch := conn.ReadBatch(1, 10<<20)
		from := offset
		for offset < last {
			m, err := batch.ReadMessage()
			if err != nil {
				break
			}
			offset = m.Offset + 1
			var env events.Envelope
			if err := json.Unmarshal(m.Value, &env); err != nil {
				t.Fatalf("decoding %s/%d@%d: %v", topic, partition, m.Offset, err)
			}
			out = append(out, env)
		}
		if err := batch.Close(); offset == from {
			t.Fatalf("reading %s/%d at %d: no message (%v)", topic, partition, offset, err)
		}
	}
	return out
}
