package ingest_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paylane/paylane/libs/events"
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
	if _, err := env.App.UpdateEndpoint(ctx, tenant, inactive.ID, webhook.Input{IsActive: &off}, webhook.Patch); err != nil {
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
