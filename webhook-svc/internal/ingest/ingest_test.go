package ingest_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenant = "01JTENANT0000000000000000A"
	other  = "01JTENANT0000000000000000B"
)

// Each event becomes one delivery per active endpoint whose patterns match,
// in the event's tenant only; a redelivered event creates nothing more.
func TestHandleMatchesEndpointsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	const url = "https://hooks.example.com/x"
	exact := env.Endpoint(t, tenant, url, "contact.created")
	domain := env.Endpoint(t, tenant, url, "contact.*")
	all := env.Endpoint(t, tenant, url, "*")
	payables := env.Endpoint(t, tenant, url, "payable.*")
	inactive := env.Endpoint(t, tenant, url, "*")
	off := false
	if _, err := env.App.UpdateEndpoint(ctx, idempotency.Tx{}, tenant, inactive.ID, webhook.Input{IsActive: &off}, webhook.Patch); err != nil {
		t.Fatal(err)
	}
	otherTenant := env.Endpoint(t, other, url, "*")

	created := env.Event(t, tenant, "contact.created", map[string]string{"id": "C1"})
	if err := env.Ingest.Handle(ctx, created); err != nil { // redelivery
		t.Fatal(err)
	}
	env.Event(t, tenant, "contact.batch.completed", map[string]int{"total_items": 3})
	env.Event(t, tenant, events.TypeTokenRevoked, map[string]int{"token_id": 3})

	want := map[string][]string{
		exact.ID:       {"contact.created"},
		domain.ID:      {"contact.batch.completed", "contact.created"},
		all.ID:         {"contact.batch.completed", "contact.created"},
		payables.ID:    nil,
		inactive.ID:    nil,
		otherTenant.ID: nil,
	}
	for id, types := range want {
		tenantID := tenant
		if id == otherTenant.ID {
			tenantID = other
		}
		var got []string
		for _, d := range env.Deliveries(t, tenantID, id) {
			got = append(got, d.EventType)
			if d.Status != webhook.StatusPending || d.AttemptCount != 0 || d.NextAttemptAt == nil {
				t.Errorf("new delivery %+v, want pending and due", d)
			}
		}
		if diff := cmp.Diff(types, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("endpoint %s deliveries (-want +got):\n%s", id, diff)
		}
	}
}

// More endpoints than the ids made up front: every one still gets its
// delivery, once.
func TestHandleManyEndpoints(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	var eps []string
	for range 11 {
		eps = append(eps, env.Endpoint(t, tenant, "https://hooks.example.com/x", "*").ID)
	}
	ev := env.Event(t, tenant, "contact.created", map[string]string{"id": "C1"})
	if err := env.Ingest.Handle(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range eps {
		rows := env.Deliveries(t, tenant, id)
		if len(rows) != 1 || rows[0].EventID != ev.ID {
			t.Errorf("endpoint %s has %d deliveries, want 1", id, len(rows))
			continue
		}
		if seen[rows[0].ID] {
			t.Errorf("delivery id %s used twice", rows[0].ID)
		}
		seen[rows[0].ID] = true
	}
}

func TestBodyShape(t *testing.T) {
	t.Parallel()
	env, err := events.New("receivable.paid", tenant, "req", map[string]any{"id": "R1", "amount": 1250})
	if err != nil {
		t.Fatal(err)
	}
	env.OccurredAt = env.OccurredAt.Truncate(1e9).Add(123e6)
	b, err := ingest.Body(env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + env.ID + `","type":"receivable.paid","created_at":"` + env.OccurredAt.UTC().Format("2006-01-02T15:04:05.000Z") +
		`","data":{"amount":1250,"id":"R1"}}`
	if string(b) != want {
		t.Errorf("body\n got %s\nwant %s", b, want)
	}
}

// eventIDs maps each delivery's event id of an endpoint to how many
// deliveries it has.
func eventIDs(t *testing.T, env *testenv.Env, tenantID, endpointID string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, d := range env.Deliveries(t, tenantID, endpointID) {
		got[d.EventID]++
	}
	return got
}

func queued(t *testing.T, env *testenv.Env) int {
	t.Helper()
	var n int
	if err := env.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM delivery_queue").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A batch of events of several tenants, interleaved as one partition
// carries them, becomes one delivery per event and subscribed endpoint, in
// the event's tenant only; handling the same batch again adds nothing.
func TestHandleBatchIngestsEachEventOnceInItsTenant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	const third = "01JTENANT0000000000000000C" // no endpoints
	const url = "https://hooks.example.com/x"
	contactsA := env.Endpoint(t, tenant, url, "contact.*")
	allA := env.Endpoint(t, tenant, url, "*")
	createdB := env.Endpoint(t, other, url, "contact.created")

	want := map[string]map[string]int{contactsA.ID: {}, allA.ID: {}, createdB.ID: {}}
	var batch []events.Envelope
	for i := range 30 {
		tenantID := []string{tenant, other, third}[i%3]
		typ := []string{"contact.created", "receivable.created"}[i/3%2]
		ev, err := events.New(typ, tenantID, "", map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, ev)
		switch {
		case tenantID == tenant:
			want[allA.ID][ev.ID] = 1
			if typ == "contact.created" {
				want[contactsA.ID][ev.ID] = 1
			}
		case tenantID == other && typ == "contact.created":
			want[createdB.ID][ev.ID] = 1
		}
	}
	internal, err := events.New(events.TypeTokenRevoked, tenant, "", map[string]int{"token_id": 1})
	if err != nil {
		t.Fatal(err)
	}
	malformed, err := events.New("contact.created", tenant, "", map[string]int{"n": -1})
	if err != nil {
		t.Fatal(err)
	}
	malformed.TenantID = "tenant\x00id"                  // no tenant can have it: skipped, never failing the batch
	batch = append(batch, internal, batch[0], malformed) // an internal event and a repeat inside the batch

	total := 0
	for _, m := range want {
		total += len(m)
	}
	for _, round := range []string{"first delivery", "redelivery"} {
		if err := env.Ingest.HandleBatch(ctx, batch); err != nil {
			t.Fatalf("%s: %v", round, err)
		}
		for _, ep := range []struct{ tenant, id string }{{tenant, contactsA.ID}, {tenant, allA.ID}, {other, createdB.ID}} {
			if diff := cmp.Diff(want[ep.id], eventIDs(t, env, ep.tenant, ep.id)); diff != "" {
				t.Errorf("%s: deliveries per event of endpoint %s (-want +got):\n%s", round, ep.id, diff)
			}
		}
		if n := queued(t, env); n != total {
			t.Errorf("%s: %d queued deliveries, want %d", round, n, total)
		}
		// Only events an endpoint subscribes to are claimed: the third
		// tenant's, other's receivable.created and the internal event
		// leave no inbox row.
		claimed := map[string]int{}
		for _, m := range want {
			for id := range m {
				claimed[id] = 1
			}
		}
		if diff := cmp.Diff(claimed, inboxIDs(t, env)); diff != "" {
			t.Errorf("%s: claimed events (-want +got):\n%s", round, diff)
		}
	}
}

// inboxIDs counts the inbox rows of webhook-svc per event id.
func inboxIDs(t *testing.T, env *testenv.Env) map[string]int {
	t.Helper()
	rows, err := env.DB.Pool.Query(context.Background(), "SELECT event_id FROM inbox WHERE consumer = 'webhook-svc'")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, id := range ids {
		out[id]++
	}
	return out
}

// When one tenant's share of a batch fails, the shares before it stay
// committed; the batch handled again delivers each event once.
func TestHandleBatchRetryAfterPartialFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	const url = "https://hooks.example.com/x"
	epA := env.Endpoint(t, tenant, url, "*")
	epB := env.Endpoint(t, other, url, "*")
	wantA, wantB := map[string]int{}, map[string]int{}
	var good []events.Envelope
	for i := range 6 {
		tenantID, want := tenant, wantA
		if i >= 3 {
			tenantID, want = other, wantB
		}
		ev, err := events.New("contact.updated", tenantID, "", map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		good = append(good, ev)
		want[ev.ID] = 1
	}
	// The database refuses the second tenant's deliveries until the trigger goes.
	for _, q := range []string{
		`CREATE FUNCTION refuse_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused for the test'; END $$`,
		`CREATE TRIGGER refuse_tenant BEFORE INSERT ON deliveries FOR EACH ROW
		WHEN (NEW.tenant_id = '` + other + `') EXECUTE FUNCTION refuse_tenant()`,
	} {
		if _, err := env.DB.Owner.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Ingest.HandleBatch(ctx, good); err == nil {
		t.Fatal("a batch the database refused for one tenant was handled")
	}
	if diff := cmp.Diff(wantA, eventIDs(t, env, tenant, epA.ID)); diff != "" {
		t.Errorf("after the failure, first tenant's deliveries (-want +got):\n%s", diff)
	}
	if got := eventIDs(t, env, other, epB.ID); len(got) != 0 {
		t.Errorf("after the failure, the tenant after the failing one has deliveries %v, want none", got)
	}

	if _, err := env.DB.Owner.Exec(ctx, "DROP TRIGGER refuse_tenant ON deliveries"); err != nil {
		t.Fatal(err)
	}
	if err := env.Ingest.HandleBatch(ctx, good); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantA, eventIDs(t, env, tenant, epA.ID)); diff != "" {
		t.Errorf("after the retry, first tenant's deliveries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantB, eventIDs(t, env, other, epB.ID)); diff != "" {
		t.Errorf("after the retry, second tenant's deliveries (-want +got):\n%s", diff)
	}
}
