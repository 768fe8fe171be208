package dispatch_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// With many attempts finishing at once, their outcomes are written in
// shared transactions: every delivery is still recorded exactly once, as
// its own attempt.
func TestManyConcurrentOutcomesAreEachRecordedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const deliveries = 300
	env := testenv.New(t, testenv.NewClock())
	rc := testenv.NewReceiver(t, nil)
	ep := env.Endpoint(t, tenant, rc.URL(), "*")
	var batch []events.Envelope
	for i := range deliveries {
		ev, err := events.New("contact.created", tenant, "", map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, ev)
	}
	if err := env.Ingest.HandleBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(t, env, rc, func(o *dispatch.Options) { o.Concurrency = 64 })
	if n := runOnce(t, d); n != deliveries {
		t.Fatalf("handled %d deliveries, want %d", n, deliveries)
	}
	if got := len(rc.Requests()); got != deliveries {
		t.Errorf("receiver got %d requests, want %d", got, deliveries)
	}
	var succeeded, attempts int
	err := tenancy.Read(ctx, env.DB.Pool, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM deliveries WHERE status = 'succeeded' AND attempt_count = 1),
			(SELECT count(*) FROM attempts WHERE number = 1 AND succeeded)`).Scan(&succeeded, &attempts)
	})
	if err != nil || succeeded != deliveries || attempts != deliveries {
		t.Errorf("%d deliveries succeeded after one attempt, %d attempts recorded (%v); want %d each",
			succeeded, attempts, err, deliveries)
	}
	if h := env.GetEndpoint(t, tenant, ep.ID); h.ConsecutiveFailures != 0 || h.LastSucceededAt == nil {
		t.Errorf("endpoint health = %+v, want a success and no failures", h)
	}
	var open int
	if err := env.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM delivery_queue").Scan(&open); err != nil || open != 0 {
		t.Errorf("%d deliveries still queued (%v), want none", open, err)
	}
	if n := runOnce(t, d); n != 0 {
		t.Errorf("%d deliveries ran again", n)
	}
}
