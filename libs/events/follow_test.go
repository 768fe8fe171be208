package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
)

// keyed is one message to publish: a tenant key and an envelope (or raw
// bytes when env is empty).
type keyed struct {
	tenant, typ string
	raw         []byte
}

// publishKeyed writes msgs to topic keyed by tenant, so different tenants
// land on different partitions and one tenant's messages stay in order.
func publishKeyed(t *testing.T, brokers []string, topic string, msgs ...keyed) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{},
		RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	for _, m := range msgs {
		value := m.raw
		if value == nil {
			env, err := events.New(m.typ, m.tenant, "", map[string]string{"k": "v"})
			if err != nil {
				t.Fatal(err)
			}
			if value, err = json.Marshal(env); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Key: []byte(m.tenant), Value: value}); err != nil {
			t.Fatal(err)
		}
	}
}

// follower runs Follow in the background and records "tenant type" of
// every event handled.
type follower struct {
	mu     sync.Mutex
	seen   []string
	cancel context.CancelFunc
	done   chan error
}

func startFollower(t *testing.T, brokers []string, handle func(events.Envelope) error) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		f.done <- events.Follow(ctx, brokers, []string{events.TopicOptins}, nil, func() { close(ready) },
			func(_ context.Context, env events.Envelope) error {
				f.mu.Lock()
				f.seen = append(f.seen, env.TenantID+" "+env.Type)
				f.mu.Unlock()
				return handle(env)
			})
	}()
	t.Cleanup(func() { f.stop(t) })
	select {
	case <-ready:
	case <-time.After(30 * time.Second): // a bound on reaching the broker, not a latency check
		t.Fatal("Follow never became ready")
	}
	return f
}

// waitFor waits until the follower has handled n events and returns them.
func (f *follower) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f.mu.Lock()
		seen := slices.Clone(f.seen)
		f.mu.Unlock()
		if len(seen) >= n || time.Now().After(deadline) {
			return seen
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *follower) stop(t *testing.T) {
	t.Helper()
	if f.cancel == nil {
		return
	}
	f.cancel()
	f.cancel = nil
	if err := <-f.done; err != nil {
		t.Errorf("Follow returned %v", err)
	}
}

func TestFollowSeesEveryEventAfterReadyInEveryProcess(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	publishKeyed(t, brokers, events.TopicOptins, keyed{tenant: "T1", typ: "suppression.created"})

	fails := func(env events.Envelope) error {
		if env.Type == "opt_in.revoked" {
			return errors.New("cannot invalidate")
		}
		return nil
	}
	first := startFollower(t, brokers, fails)
	second := startFollower(t, brokers, fails)

	// Six tenants cover the three partitions; T1's old event comes before
	// its new ones in its partition, so handling it would show first.
	var msgs []keyed
	for _, tenant := range []string{"T1", "T2", "T3", "T4", "T5", "T6"} {
		msgs = append(msgs, keyed{tenant: tenant, typ: "opt_in.revoked"}, keyed{tenant: tenant, raw: []byte("not json")},
			keyed{tenant: tenant, typ: "opt_in.confirmed"})
	}
	publishKeyed(t, brokers, events.TopicOptins, msgs...)

	var want []string
	for _, m := range msgs {
		if m.raw == nil {
			want = append(want, m.tenant+" "+m.typ)
		}
	}
	for name, f := range map[string]*follower{"first": first, "second": second} {
		got := f.waitFor(t, len(want))
		f.stop(t)
		// Per tenant, the failed opt_in.revoked was not retried and did
		// not hold back the event after it; the event before ready never came.
		for _, tenant := range []string{"T1", "T2", "T3", "T4", "T5", "T6"} {
			var mine []string
			for _, s := range got {
				if s[:2] == tenant {
					mine = append(mine, s)
				}
			}
			if diff := cmp.Diff([]string{tenant + " opt_in.revoked", tenant + " opt_in.confirmed"}, mine); diff != "" {
				t.Errorf("%s follower, tenant %s handled (-want +got):\n%s", name, tenant, diff)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s follower handled %d events, want %d: %v", name, len(got), len(want), got)
		}
	}
}

func TestFollowNeedsConfiguration(t *testing.T) {
	t.Parallel()
	handle := func(context.Context, events.Envelope) error { return nil }
	if err := events.Follow(context.Background(), nil, []string{"t"}, nil, nil, handle); err == nil {
		t.Error("Follow without brokers returned nil")
	}
	if err := events.Follow(context.Background(), []string{"127.0.0.1:9"}, nil, nil, nil, handle); err == nil {
		t.Error("Follow without topics returned nil")
	}
}

func TestFollowStopsWithContextBeforeTheBrokerAnswers(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 9 (discard): Follow is never ready and
	// returns nil, not an error, once the context ends.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	readied := false
	go func() {
		done <- events.Follow(ctx, []string{"127.0.0.1:9"}, []string{events.TopicOptins}, nil, func() { readied = true },
			func(context.Context, events.Envelope) error { return nil })
	}()
	cancel()
	if err := <-done; err != nil || readied {
		t.Fatalf("Follow = %v, ready called %v; want nil and never ready", err, readied)
	}
}
