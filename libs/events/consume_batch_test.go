package events_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
)

// batchConsumer runs ConsumeBatch in the background and records the event
// ids of every batch its handler was called with, failed calls included.
type batchConsumer struct {
	mu      sync.Mutex
	calls   [][]string
	handled []string // ids of the batches the handler accepted, in order
	cancel  context.CancelFunc
	done    chan error
}

func startBatchConsumer(brokers []string, group string, limits events.BatchLimits, handle func([]events.Envelope) error) *batchConsumer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &batchConsumer{cancel: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- events.ConsumeBatch(ctx, brokers, group, []string{events.TopicContacts}, limits, nil,
			func(_ context.Context, batch []events.Envelope) error {
				ids := make([]string, len(batch))
				for i, env := range batch {
					ids[i] = env.ID
				}
				err := handle(batch)
				c.mu.Lock()
				defer c.mu.Unlock()
				c.calls = append(c.calls, ids)
				if err == nil {
					c.handled = append(c.handled, ids...)
				}
				return err
			})
	}()
	return c
}

// waitUntil waits until ok holds for the recorded calls and handled ids.
func (c *batchConsumer) waitUntil(t *testing.T, what string, ok func(calls [][]string, handled []string) bool) ([][]string, []string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		calls, handled := slices.Clone(c.calls), slices.Clone(c.handled)
		c.mu.Unlock()
		if ok(calls, handled) {
			return calls, handled
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("waiting for %s; calls so far: %v", what, c.calls)
	return nil, nil
}

func (c *batchConsumer) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	if err := <-c.done; err != nil {
		t.Fatalf("ConsumeBatch returned %v", err)
	}
}

// produceEvents publishes n contact events (one partition) and returns their ids in order.
func produceEvents(t *testing.T, brokers []string, n int, garbageAfter int) []string {
	t.Helper()
	var ids []string
	var values [][]byte
	for i := range n {
		env, raw := envelope(t, "contact.created")
		ids = append(ids, env.ID)
		values = append(values, raw)
		if i+1 == garbageAfter {
			values = append(values, []byte("not json"))
		}
	}
	produce(t, brokers, events.TopicContacts, values...)
	return ids
}

// Every event arrives once, in partition order, in batches no larger than
// the limit; a message that is not an envelope is left out.
func TestConsumeBatchKeepsOrderWithinLimits(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	want := produceEvents(t, brokers, 11, 5)

	c := startBatchConsumer(brokers, "batch-order", events.BatchLimits{Size: 4}, func([]events.Envelope) error { return nil })
	calls, got := c.waitUntil(t, "every event", func(_ [][]string, handled []string) bool { return len(handled) >= len(want) })
	c.stop(t)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("handled (-want +got):\n%s", diff)
	}
	for _, call := range calls {
		if len(call) == 0 || len(call) > 4 {
			t.Errorf("batch of %d events, want 1 to 4", len(call))
		}
	}
}

// A failing handler gets the same batch again and nothing is committed:
// the next member of the group receives every event. Once a batch
// succeeds, its offsets are committed together.
func TestConsumeBatchRetriesWithoutCommitting(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	want := produceEvents(t, brokers, 3, 0)

	failing := startBatchConsumer(brokers, "batch-retry", events.BatchLimits{}, func([]events.Envelope) error {
		return errors.New("database unavailable")
	})
	calls, _ := failing.waitUntil(t, "a retry", func(calls [][]string, _ []string) bool { return len(calls) >= 2 })
	failing.stop(t)
	if diff := cmp.Diff(calls[0], calls[1]); diff != "" {
		t.Errorf("retried batch differs from the failed one (-first +retry):\n%s", diff)
	}

	ok := startBatchConsumer(brokers, "batch-retry", events.BatchLimits{}, func([]events.Envelope) error { return nil })
	_, got := ok.waitUntil(t, "the uncommitted events", func(_ [][]string, handled []string) bool { return len(handled) >= len(want) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("after the failures, handled (-want +got):\n%s", diff)
	}
	// A batch is committed before the next is fetched: once the member has
	// handled a later event, the first batch's offsets are committed.
	produceEvents(t, brokers, 1, 0)
	ok.waitUntil(t, "a later event", func(_ [][]string, handled []string) bool { return len(handled) > len(want) })
	ok.stop(t)

	last := produceEvents(t, brokers, 1, 0)
	again := startBatchConsumer(brokers, "batch-retry", events.BatchLimits{}, func([]events.Envelope) error { return nil })
	_, got = again.waitUntil(t, "the last event", func(_ [][]string, handled []string) bool { return slices.Contains(handled, last[0]) })
	again.stop(t)
	for _, id := range want {
		if slices.Contains(got, id) {
			t.Errorf("event %s of a committed batch came again: %v", id, got)
		}
	}
}

func TestConsumeBatchNeedsConfiguration(t *testing.T) {
	t.Parallel()
	err := events.ConsumeBatch(context.Background(), []string{"localhost:9092"}, "", []string{"t"}, events.BatchLimits{}, nil,
		func(context.Context, []events.Envelope) error { return nil })
	if err == nil {
		t.Fatal("ConsumeBatch without a group returned nil")
	}
}
