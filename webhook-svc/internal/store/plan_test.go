package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestJobsProbeThePrimaryKey: the dispatcher's read of the deliveries it
// claimed probes deliveries_pkey by tenant and id, once per id, in the
// generic plan pgx's statement cache switches to as in a custom plan, while
// the table has no statistics (a burst fills it from empty before
// autovacuum analyzes it). A plan that reads the tenant's deliveries by the
// tenant alone and compares each with the ids costs the tenant's whole
// delivery history on every claim.
func TestJobsProbeThePrimaryKey(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	env.Endpoint(t, tenant, "https://hooks.example.com/a", "*")
	for range 100 {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		probes := 0
		plan := testkit.ExplainPrepared(t, env.DB.Pool, tenant, mode, "text[], text", store.JobsSQL, []string{"a", "b"}, tenant)
		plan.Walk(func(n testkit.PlanNode) {
			if n.Relation != "deliveries" && !strings.HasPrefix(n.Index, "deliveries") {
				return
			}
			if n.Index == "deliveries_pkey" && strings.Contains(n.IndexCond, "tenant_id = ") && strings.Contains(n.IndexCond, "id = x.id") {
				probes++
				return
			}
			t.Errorf("%s: deliveries read by %s %s (Index Cond %q), not probed by tenant and id", mode, n.NodeType, n.Index, n.IndexCond)
		})
		if probes != 1 {
			t.Errorf("%s: %d probes of deliveries_pkey, want 1", mode, probes)
		}
	}
}

// TestClaimDueReadsOnlyWhatItClaims: finding the tenants with due
// deliveries skips through delivery_queue_tenant_due, the claim reads each
// tenant's due rows in due_at order from it and updates the rows it locked
// by their ctid, in every plan, so a claim costs the rows it takes (and a
// probe a tenant) rather than the whole queue: joined by delivery_id, the
// generic plan read the queue (here 20,000 rows due later) on every claim.
func TestClaimDueReadsOnlyWhatItClaims(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	env.Endpoint(t, tenant, "https://hooks.example.com/a", "*")
	for range 100 {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	now := env.Clock.Now()
	// A backlog of a retrying endpoint, due later, that no claim may read.
	if _, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO delivery_queue (delivery_id, tenant_id, due_at)
		SELECT 'later-' || i, $1, $2::timestamptz + interval '1 hour' FROM generate_series(1, 20000) i`, tenant, now); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		for name, plan := range map[string]testkit.PlanNode{
			"claim": testkit.ExplainPrepared(t, env.DB.Pool, tenant, mode, "timestamptz, int, timestamptz, text, text[]",
				store.ClaimDueSQL, now, 16, now.Add(time.Minute), "token", []string{tenant, "01JTENANT0000000000000000B"}),
			"due tenants": testkit.ExplainPrepared(t, env.DB.Pool, tenant, mode, "timestamptz", store.DueTenantsSQL, now),
		} {
			plan.Walk(func(n testkit.PlanNode) {
				switch {
				case n.Relation != "delivery_queue" && !strings.HasPrefix(n.Index, "delivery_queue"), n.NodeType == "ModifyTable":
				case n.NodeType == "Tid Scan", n.Index == "delivery_queue_tenant_due", n.NodeType == "Bitmap Heap Scan":
					// A bitmap's rows come from its Bitmap Index Scan, checked in turn.
				default:
					t.Errorf("%s, %s: delivery_queue read by %s %s", name, mode, n.NodeType, n.Index)
				}
			})
		}
	}
}
