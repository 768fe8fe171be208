package dispatch_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// The ingester wakes the dispatcher in-process after its commit: with the
// poll an hour apart and no NOTIFY, every event ingested while the
// dispatcher runs idle is still delivered.
func TestIngestWakesTheDispatcher(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	rc := testenv.NewReceiver(t, nil)
	ep := env.Endpoint(t, tenant, rc.URL(), "contact.*")
	d := newDispatcher(t, env, rc, func(o *dispatch.Options) { o.PollInterval = time.Hour })
	in := ingest.New(env.Store, nil, testenv.Logger(t), d.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})

	for i := range 3 {
		ev, err := events.New("contact.created", tenant, "", map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
		// Wait until the delivery is recorded, so the dispatcher is idle
		// again before the next event comes.
		deadline := time.Now().Add(30 * time.Second)
		for !succeeded(t, env, ep.ID, ev.ID) {
			if time.Now().After(deadline) {
				t.Fatalf("event %d was not delivered: the dispatcher was not woken", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var got []string
	for _, r := range rc.Requests() {
		got = append(got, r.Header.Get("webhook-id"))
	}
	if len(got) != 3 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 3 {
		t.Errorf("receiver got %v, want three different events once each", got)
	}
}

func succeeded(t *testing.T, env *testenv.Env, endpointID, eventID string) bool {
	t.Helper()
	for _, d := range env.Deliveries(t, tenant, endpointID) {
		if d.EventID == eventID && d.Status == webhook.StatusSucceeded {
			return true
		}
	}
	return false
}
