package dispatch_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// A receiver that fails for a while and then recovers gets every event, and
// each event exactly once as a succeeded delivery.
func TestFailingReceiverRecoversAndGetsEveryEventOnce(t *testing.T) {
	t.Parallel()
	clock := testenv.NewClock()
	env := testenv.New(t, clock)
	var (
		mu   sync.Mutex
		down = true
	)
	rc := testenv.NewReceiver(t, func(_ int, w http.ResponseWriter, _ testenv.Request) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := env.Endpoint(t, tenant, rc.URL(), "contact.*")
	const events = 6
	ids := map[string]bool{}
	for range events {
		ids[env.Event(t, tenant, "contact.created", map[string]string{"k": "v"}).ID] = true
	}
	d := newDispatcher(t, env, rc, noBreaker)
	runOnce(t, d)
	clock.Advance(5 * time.Second)
	runOnce(t, d)
	mu.Lock()
	down = false
	mu.Unlock()
	clock.Advance(5 * time.Minute)
	runOnce(t, d)

	succeeded := map[string]int{}
	for _, r := range rc.Requests()[2*events:] {
		succeeded[r.Header.Get("webhook-id")]++
		if err := verify(t, ep.SigningSecret, r); err != nil {
			t.Errorf("signature: %v", err)
		}
	}
	for id := range ids {
		if succeeded[id] != 1 {
			t.Errorf("event %s received %d times after recovery, want 1", id, succeeded[id])
		}
	}
	rows := env.Deliveries(t, tenant, ep.ID)
	if len(rows) != events {
		t.Fatalf("%d deliveries, want %d", len(rows), events)
	}
	for _, row := range rows {
		if row.Status != webhook.StatusSucceeded || row.AttemptCount != 3 || len(row.Attempts) != 3 {
			t.Errorf("delivery %s: %s after %d attempts, want succeeded on the third", row.ID, row.Status, row.AttemptCount)
		}
	}
	if h := env.GetEndpoint(t, tenant, ep.ID); h.ConsecutiveFailures != 0 || h.LastFailedAt == nil || h.LastSucceededAt == nil {
		t.Errorf("endpoint health = %+v, want failures reset and both timestamps set", h)
	}
	clock.Advance(24 * time.Hour)
	if n := runOnce(t, d); n != 0 {
		t.Errorf("%d deliveries ran again after success", n)
	}
}

// 50 failed attempts in a row disable the endpoint and cancel its open
// deliveries; PATCH is_active true re-enables it with the count reset.
func TestFiftyConsecutiveFailuresDisableTheEndpoint(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, failing(http.StatusInternalServerError))
	for range 7 { // 7 deliveries × 8 attempts ≥ 50
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	// One at a time, so no attempt is in flight when the 50th disables it.
	d := newDispatcher(t, env, rc, noBreaker, func(o *dispatch.Options) { o.Concurrency = 1 })
	for range 2 * webhook.MaxAttempts {
		runOnce(t, d)
		clock.Advance(11 * time.Hour)
	}
	got := env.GetEndpoint(t, tenant, ep.ID)
	if got.IsActive || got.DisabledAt == nil || got.ConsecutiveFailures != webhook.DisableThreshold {
		t.Fatalf("endpoint = %+v, want disabled at %d consecutive failures", got, webhook.DisableThreshold)
	}
	if n := len(rc.Requests()); n != webhook.DisableThreshold {
		t.Errorf("receiver got %d attempts, want exactly %d before the endpoint was disabled", n, webhook.DisableThreshold)
	}
	counts := map[string]int{}
	recorded := 0
	for _, row := range env.Deliveries(t, tenant, ep.ID) {
		counts[row.Status]++
		recorded += len(row.Attempts)
	}
	if recorded != webhook.DisableThreshold {
		t.Errorf("%d attempts recorded, want %d", recorded, webhook.DisableThreshold)
	}
	if counts[webhook.StatusCancelled] == 0 || counts[webhook.StatusPending]+counts[webhook.StatusRetrying] != 0 {
		t.Errorf("delivery statuses %v, want the open ones cancelled", counts)
	}
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	if n := runOnce(t, d); n != 0 {
		t.Errorf("a disabled endpoint got a new delivery")
	}

	active := true
	re, err := env.App.UpdateEndpoint(context.Background(), idempotency.Tx{}, tenant, ep.ID, webhook.Input{IsActive: &active}, webhook.Patch)
	if err != nil {
		t.Fatal(err)
	}
	if !re.IsActive || re.DisabledAt != nil || re.ConsecutiveFailures != 0 {
		t.Errorf("re-enabled endpoint = %+v, want active with the count reset", re)
	}
}

// While an endpoint's breaker is open, due attempts are deferred: not made,
// not counted.
func TestOpenBreakerDefersWithoutBurningAttempts(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, failing(http.StatusBadGateway))
	for range 4 {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	d := newDispatcher(t, env, rc, func(o *dispatch.Options) {
		o.BreakerFailures = 2
		o.BreakerOpenFor = time.Hour // real time: stays open for the whole test
		o.Concurrency = 1            // one at a time, so the breaker sees them in order
	})
	runOnce(t, d)
	if n := len(rc.Requests()); n != 2 {
		t.Fatalf("receiver got %d attempts, want 2 before the breaker opened", n)
	}
	clock.Advance(5 * time.Second)
	runOnce(t, d)
	if n := len(rc.Requests()); n != 2 {
		t.Fatalf("receiver got %d attempts, want none while the breaker is open", n)
	}
	attempts := 0
	for _, row := range env.Deliveries(t, tenant, ep.ID) {
		attempts += row.AttemptCount
		if !webhook.Open(row.Status) || row.NextAttemptAt == nil {
			t.Errorf("delivery %s: %s, want still open with a next attempt", row.ID, row.Status)
		}
	}
	if attempts != 2 {
		t.Errorf("%d attempts recorded, want 2 (deferrals are not attempts)", attempts)
	}
	if h := env.GetEndpoint(t, tenant, ep.ID); h.ConsecutiveFailures != 2 {
		t.Errorf("consecutive_failures = %d, want 2", h.ConsecutiveFailures)
	}
}
