package dispatch_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func TestDeliveryIsSignedAndVerifiable(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	rc := testenv.NewReceiver(t, nil)
	ep := env.Endpoint(t, tenant, rc.URL(), "contact.*")
	ev := env.Event(t, tenant, "contact.created", map[string]string{"id": "C1", "first_name": "Ada"})
	env.Event(t, tenant, "receivable.created", map[string]string{"id": "R1"}) // not subscribed

	d := newDispatcher(t, env, rc)
	if n := runOnce(t, d); n != 1 {
		t.Fatalf("handled %d deliveries, want 1", n)
	}
	got := rc.Requests()
	if len(got) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(got))
	}
	r := got[0]
	if err := verify(t, ep.SigningSecret, r); err != nil {
		t.Fatalf("the Standard Webhooks library rejects the delivery: %v", err)
	}
	if r.Header.Get("webhook-id") != ev.ID {
		t.Errorf("webhook-id = %q, want the event id %q", r.Header.Get("webhook-id"), ev.ID)
	}
	if ts := r.Header.Get("webhook-timestamp"); ts != "1795309200" {
		t.Errorf("webhook-timestamp = %q, want the clock's unix seconds", ts)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": ev.ID, "type": "contact.created", "created_at": "2026-11-22T01:00:00.000Z",
		"data": map[string]any{"id": "C1", "first_name": "Ada"},
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	rows := env.Deliveries(t, tenant, ep.ID)
	if len(rows) != 1 || rows[0].Status != webhook.StatusSucceeded || rows[0].AttemptCount != 1 ||
		rows[0].DeliveredAt == nil || rows[0].ResponseStatus == nil || *rows[0].ResponseStatus != http.StatusNoContent {
		t.Fatalf("delivery rows = %+v, want one succeeded after one attempt with 204", rows)
	}
	if len(rows[0].Attempts) != 1 || !rows[0].Attempts[0].Succeeded {
		t.Errorf("attempts = %+v, want one succeeded", rows[0].Attempts)
	}
	health := env.GetEndpoint(t, tenant, ep.ID)
	if health.LastSucceededAt == nil || health.ConsecutiveFailures != 0 {
		t.Errorf("endpoint health = %+v, want last_succeeded_at set", health)
	}
	if n := runOnce(t, d); n != 0 || len(rc.Requests()) != 1 {
		t.Errorf("a second run sent again (%d handled)", n)
	}
}

// wantSchedule is the wait before each retry with no jitter.
var wantSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

func TestRetriesFollowTheScheduleThenFail(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, failing(http.StatusInternalServerError))
	ev := env.Event(t, tenant, "contact.updated", map[string]string{"id": "C1"})
	d := newDispatcher(t, env, rc, noBreaker)

	start := clock.Now()
	runOnce(t, d)
	elapsed := time.Duration(0)
	for i, wait := range wantSchedule {
		clock.Advance(wait - time.Second)
		if n := runOnce(t, d); n != 0 {
			t.Fatalf("retry %d ran %s early", i+1, time.Second)
		}
		clock.Advance(time.Second)
		elapsed += wait
		if n := runOnce(t, d); n != 1 {
			t.Fatalf("retry %d not made at +%s (handled %d)", i+1, elapsed, n)
		}
	}
	got := rc.Requests()
	if len(got) != webhook.MaxAttempts {
		t.Fatalf("receiver got %d requests, want %d", len(got), webhook.MaxAttempts)
	}
	for i, r := range got {
		if r.Header.Get("webhook-id") != ev.ID {
			t.Errorf("attempt %d: webhook-id %q, want the event id on every retry", i+1, r.Header.Get("webhook-id"))
		}
		if err := verify(t, ep.SigningSecret, r); err != nil {
			t.Errorf("attempt %d: signature: %v", i+1, err)
		}
	}
	rows := env.Deliveries(t, tenant, ep.ID)
	row := rows[0]
	if row.Status != webhook.StatusFailed || row.AttemptCount != webhook.MaxAttempts || row.NextAttemptAt != nil ||
		row.LastError == nil || *row.LastError != "HTTP 500" || len(row.Attempts) != webhook.MaxAttempts {
		t.Fatalf("delivery = %+v, want failed after %d attempts", row, webhook.MaxAttempts)
	}
	at := start
	for i, a := range row.Attempts {
		if !a.AttemptedAt.Equal(at) {
			t.Errorf("attempt %d at %s, want %s", i+1, a.AttemptedAt, at)
		}
		if i < len(wantSchedule) {
			at = at.Add(wantSchedule[i])
		}
	}
	clock.Advance(24 * time.Hour)
	if n := runOnce(t, d); n != 0 {
		t.Errorf("a failed delivery was attempted again")
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	clock := testenv.NewClock()
	env := testenv.New(t, clock)
	rc := testenv.NewReceiver(t, func(n int, w http.ResponseWriter, _ testenv.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := env.Endpoint(t, tenant, rc.URL(), "*")
	env.Event(t, tenant, "contact.created", map[string]string{"id": "C1"})
	d := newDispatcher(t, env, rc, noBreaker)
	runOnce(t, d)
	clock.Advance(5 * time.Second) // the schedule's wait; Retry-After asks for more
	if n := runOnce(t, d); n != 0 {
		t.Fatal("retried before Retry-After")
	}
	clock.Advance(115 * time.Second)
	if n := runOnce(t, d); n != 1 {
		t.Fatal("not retried once Retry-After passed")
	}
	row := env.Deliveries(t, tenant, ep.ID)[0]
	if row.Status != webhook.StatusSucceeded || row.AttemptCount != 2 {
		t.Fatalf("delivery = %+v, want succeeded on the second attempt", row)
	}
}

func TestRedirectIsAFailureAndNotFollowed(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	rc := testenv.NewReceiver(t, func(_ int, w http.ResponseWriter, _ testenv.Request) {
		w.Header().Set("Location", "/elsewhere")
		w.WriteHeader(http.StatusFound)
	})
	ep := env.Endpoint(t, tenant, rc.URL(), "*")
	env.Event(t, tenant, "contact.created", map[string]string{"id": "C1"})
	runOnce(t, newDispatcher(t, env, rc))
	if got := len(rc.Requests()); got != 1 {
		t.Fatalf("receiver got %d requests, want 1 (the redirect not followed)", got)
	}
	row := env.Deliveries(t, tenant, ep.ID)[0]
	if row.Status != webhook.StatusRetrying || row.ResponseStatus == nil || *row.ResponseStatus != http.StatusFound {
		t.Fatalf("delivery = %+v, want retrying after a 302", row)
	}
}

func TestTimeScaleCompressesTheSchedule(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, failing(http.StatusInternalServerError))
	env.Event(t, tenant, "contact.updated", map[string]string{"id": "C1"})
	d := newDispatcher(t, env, rc, noBreaker, func(o *dispatch.Options) { o.TimeScale = 0.001 })

	start := clock.Now()
	runOnce(t, d)
	for i, wait := range wantSchedule {
		scaled := time.Duration(float64(wait) * 0.001)
		clock.Advance(scaled - time.Millisecond)
		if n := runOnce(t, d); n != 0 {
			t.Fatalf("retry %d ran before %s", i+1, scaled)
		}
		clock.Advance(time.Millisecond)
		if n := runOnce(t, d); n != 1 {
			t.Fatalf("retry %d not made after %s (handled %d)", i+1, scaled, n)
		}
	}
	row := env.Deliveries(t, tenant, ep.ID)[0]
	if row.Status != webhook.StatusFailed || row.AttemptCount != webhook.MaxAttempts {
		t.Fatalf("delivery = %+v, want failed after %d attempts", row, webhook.MaxAttempts)
	}
	at := start
	for i, a := range row.Attempts {
		if !a.AttemptedAt.Equal(at) {
			t.Errorf("attempt %d at %s, want %s", i+1, a.AttemptedAt, at)
		}
		if i < len(wantSchedule) {
			at = at.Add(time.Duration(float64(wantSchedule[i]) * 0.001))
		}
	}
}
