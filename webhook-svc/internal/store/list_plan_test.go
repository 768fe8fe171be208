package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestDeliveryPagesReadTheListIndex: a page of an endpoint's deliveries,
// unfiltered or of a status, walks deliveries_listed (forward for the
// newest end, backward for the oldest, listtotal.Window) and sorts no
// more than the page, in the generic plan pgx's statement cache switches
// to as in a custom plan. The statements with each filter in the text as
// "status = $2 unless $2 is empty" got the same plans (the endpoint's
// condition is always set, and no index leads with a status or an event
// type); this keeps the statements of each filter on the list's index.
func TestDeliveryPagesReadTheListIndex(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	for tenant, n := range map[string]int{"T1": 20_000, "T2": 1_000} {
		testkit.Fill(t, db.Owner, tenant, []string{
			`INSERT INTO endpoints (tenant_id, id, name, url, subscribed_events, secret, created_at, updated_at)
				SELECT $1, 'ep' || e, 'hook', 'https://hooks.example.com', '{*}', '\x00', now(), now()
				FROM generate_series(1, 2) e`,
			`INSERT INTO events (tenant_id, id, type, body, created_at)
				SELECT $1, 'ev' || i, 'contact.created', '{}', now() FROM generate_series(1, $2::int) i`,
			// Each event to both endpoints; 1 in 5 failed, the rest succeeded.
			`INSERT INTO deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, created_at, updated_at)
				SELECT $1, 'd' || e || '-' || i, 'ep' || e, 'ev' || i, 'contact.created',
					CASE WHEN i % 5 = 0 THEN 'failed' ELSE 'succeeded' END, now() - i * interval '1 minute', now()
				FROM generate_series(1, $2::int) i, generate_series(1, 2) e`,
		}, n)
	}
	// As autovacuum leaves a table after a bulk of writes.
	if _, err := db.Owner.Exec(ctx, "VACUUM ANALYZE endpoints, events, deliveries"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []store.DeliveryFilter{{}, {Status: "failed"}, {Status: "failed", EventType: "contact.created"}} {
		name := fmt.Sprintf("%+v", f)
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, order := range []string{"DESC", "ASC"} {
				_, page, args := store.DeliveriesSQL("ep1", f, order)
				plan := testkit.ExplainPrepared(t, db.Pool, "T1", mode, "", page, append(args, 25, 0)...)
				indexed := 0
				plan.Walk(func(n testkit.PlanNode) {
					switch {
					case n.Index == "deliveries_listed":
						indexed++
					case n.Relation == "deliveries" || n.Index != "":
						t.Errorf("%s page %s, %s: %s read by %s %s", name, order, mode, n.Relation, n.NodeType, n.Index)
					}
				})
				if indexed != 1 {
					t.Errorf("%s page %s, %s: %d scans of deliveries_listed, want 1", name, order, mode, indexed)
				}
				for _, n := range plan.Plans {
					n.Walk(func(n testkit.PlanNode) {
						if n.NodeType == "Sort" || n.NodeType == "Incremental Sort" {
							t.Errorf("%s page %s, %s: sorts the rows it reads", name, order, mode)
						}
					})
				}
			}
		}
	}
}
