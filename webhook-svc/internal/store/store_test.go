package store_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01JTENANT0000000000000000A"

// Tenant tables show nothing without a tenant scope; the queue, which holds
// only ids and times, is what the dispatcher reads across tenants.
func TestRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	env.Endpoint(t, tenant, "https://hooks.example.com/x", "*")
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	for _, table := range []string{"endpoints", "events", "deliveries"} {
		var n int
		if err := env.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows visible without a tenant scope, want 0", table, n)
		}
	}
	var sealed []byte
	err := env.DB.Owner.QueryRow(ctx, `SELECT secret FROM endpoints`).Scan(&sealed)
	if err == nil {
		t.Error("the owner role reads endpoints without a tenant scope (RLS not forced)")
	}
	err = tenancy.Read(ctx, env.DB.Owner, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT secret FROM endpoints`).Scan(&sealed)
	})
	if err != nil || len(sealed) == 0 || bytes.Contains(sealed, []byte("whsec_")) {
		t.Errorf("stored secret %q (%v), want sealed bytes", sealed, err)
	}
	now := env.Clock.Now()
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(claims) != 1 || claims[0].TenantID != tenant {
		t.Fatalf("ClaimDue = %+v, %v; want the tenant's one delivery", claims, err)
	}
	again, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(again) != 0 {
		t.Errorf("a claimed delivery was claimed again within its lease: %+v, %v", again, err)
	}
	later, err := env.Store.ClaimDue(ctx, now.Add(2*time.Minute), now.Add(3*time.Minute), 10, ids.New())
	if err != nil || len(later) != 1 {
		t.Errorf("a claim past its lease was not claimable again: %+v, %v", later, err)
	}
}

// Deliveries wake the dispatcher in-process; no trigger on the queue sends
// a NOTIFY from every commit that queues deliveries.
func TestQueueHasNoNotifyTrigger(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	var n int
	err := env.DB.Owner.QueryRow(context.Background(), `SELECT count(*) FROM pg_trigger
		WHERE tgrelid = 'delivery_queue'::regclass AND NOT tgisinternal`).Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("delivery_queue has %d triggers (%v), want none", n, err)
	}
}

// Record writes many outcomes in one transaction, each with its own
// result; a stale claim (the attempt is recorded already) writes nothing.
func TestRecordWritesEveryOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	first := env.Endpoint(t, tenant, "https://hooks.example.com/a", "*")
	second := env.Endpoint(t, tenant, "https://hooks.example.com/b", "contact.created")
	for range 2 {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	now := env.Clock.Now()
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(claims) != 4 {
		t.Fatalf("ClaimDue = %d claims, %v; want 4", len(claims), err)
	}
	jobs, err := env.Store.Jobs(ctx, tenant, []string{claims[0].DeliveryID, claims[1].DeliveryID, claims[2].DeliveryID, claims[3].DeliveryID})
	if err != nil {
		t.Fatal(err)
	}
	next := now.Add(5 * time.Second)
	var outcomes []store.Outcome
	want := map[string]string{}
	for i, c := range claims {
		o := store.Outcome{Claim: c, Attempt: 1, Succeeded: true, Status: webhook.StatusSucceeded,
			AttemptedAt: now, EndpointID: jobs[c.DeliveryID].Endpoint.ID}
		if i%2 == 1 {
			msg := "HTTP 500"
			o.Succeeded, o.Status, o.Error, o.NextAttemptAt = false, webhook.StatusRetrying, &msg, &next
		}
		outcomes = append(outcomes, o)
		want[c.DeliveryID] = o.Status
	}
	got, err := env.Store.Record(ctx, tenant, outcomes, webhook.DisableThreshold)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Recorded{{Written: true}, {Written: true}, {Written: true}, {Written: true}}, got); diff != "" {
		t.Errorf("Record (-want +got):\n%s", diff)
	}
	status := map[string]string{}
	for _, ep := range []string{first.ID, second.ID} {
		for _, d := range env.Deliveries(t, tenant, ep) {
			status[d.ID] = d.Status
			if d.AttemptCount != 1 || len(d.Attempts) != 1 {
				t.Errorf("delivery %s: %d attempts (%d rows), want 1", d.ID, d.AttemptCount, len(d.Attempts))
			}
		}
	}
	if diff := cmp.Diff(want, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	again, err := env.Store.Record(ctx, tenant, outcomes, webhook.DisableThreshold)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(make([]store.Recorded, len(outcomes)), again); diff != "" {
		t.Errorf("recording the same attempts again (-want +got):\n%s", diff)
	}
}

// An API write that holds an endpoint (FOR UPDATE) and then cancels its
// open deliveries must not deadlock with Record of an attempt on one of
// them: Record takes its endpoints first, before any delivery, so it waits
// for the API's transaction instead of holding the delivery it needs.
func TestRecordWaitsForAnEndpointWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	ep := env.Endpoint(t, tenant, "https://hooks.example.com/a", "*")
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	now := env.Clock.Now()
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(claims) != 1 {
		t.Fatalf("ClaimDue = %+v, %v; want one claim", claims, err)
	}

	api, err := env.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Rollback(ctx)
	if _, err := api.Exec(ctx, "SELECT set_config('"+tenancy.Setting+"', $1, true)", tenant); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Exec(ctx, `SELECT id FROM endpoints WHERE id = $1 FOR UPDATE`, ep.ID); err != nil {
		t.Fatal(err)
	}

	msg := "HTTP 500"
	next := now.Add(time.Minute)
	recorded := make(chan error, 1)
	go func() {
		_, err := env.Store.Record(ctx, tenant, []store.Outcome{{Claim: claims[0], Attempt: 1,
			Status: webhook.StatusRetrying, Error: &msg, NextAttemptAt: &next, AttemptedAt: now, EndpointID: ep.ID}},
			webhook.DisableThreshold)
		recorded <- err
	}()
	waitForLockWaiter(t, env, recorded)

	if _, err := api.Exec(ctx, `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL
		WHERE endpoint_id = $1 AND status IN ('pending', 'retrying')`, ep.ID); err != nil {
		t.Fatalf("the API's cancel of open deliveries: %v", err)
	}
	if err := api.Commit(ctx); err != nil {
		t.Fatalf("the API's commit: %v", err)
	}
	if err := <-recorded; err != nil {
		t.Fatalf("Record after the API's commit: %v", err)
	}
	d := env.Deliveries(t, tenant, ep.ID)
	if len(d) != 1 || d[0].Status != webhook.StatusCancelled || d[0].AttemptCount != 1 {
		t.Errorf("deliveries = %+v; want one cancelled delivery with its attempt recorded", d)
	}
}

// waitForLockWaiter returns once a backend of env's database waits for a
// row lock (a bounded wait for a state, not a timing assertion); it fails
// when done reports first.
func waitForLockWaiter(t *testing.T, env *testenv.Env, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("Record returned (%v) while the API's transaction held the endpoint", err)
		default:
		}
		var n int
		err := env.DB.Owner.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks l
			JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.datname = current_database()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no backend came to wait for a lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A batch of outcomes of one endpoint that holds a success and a failure
// (attempts that ran at the same time) records the success's health first
// and counts the failure after it: the endpoint ends with one failure in a
// row and its last success set, whatever the order the outcomes came in.
func TestRecordCountsABatchsFailuresAfterItsSuccesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	ep := env.Endpoint(t, tenant, "https://hooks.example.com/a", "*")
	for range 2 {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	now := env.Clock.Now()
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(claims) != 2 {
		t.Fatalf("ClaimDue = %d claims, %v; want 2", len(claims), err)
	}
	msg, next := "HTTP 500", now.Add(5*time.Second)
	failed := store.Outcome{Claim: claims[0], Attempt: 1, Status: webhook.StatusRetrying, Error: &msg,
		NextAttemptAt: &next, AttemptedAt: now, EndpointID: ep.ID}
	succeeded := store.Outcome{Claim: claims[1], Attempt: 1, Succeeded: true, Status: webhook.StatusSucceeded,
		AttemptedAt: now, EndpointID: ep.ID}
	got, err := env.Store.Record(ctx, tenant, []store.Outcome{failed, succeeded}, webhook.DisableThreshold)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Recorded{{Written: true}, {Written: true}}, got); diff != "" {
		t.Errorf("Record (-want +got):\n%s", diff)
	}
	e := env.GetEndpoint(t, tenant, ep.ID)
	if e.ConsecutiveFailures != 1 || e.LastSucceededAt == nil || e.LastFailedAt == nil {
		t.Errorf("endpoint health = %d failures in a row, last success %v, last failure %v; want 1, both set",
			e.ConsecutiveFailures, e.LastSucceededAt, e.LastFailedAt)
	}
}
