package store_test

import (
	"context"
	"testing"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/migrations"
	"github.com/paylane/paylane/libs/testkit"
)

// TestBatchPagesReadTheListIndex: a page of the tenant's batches, of every
// type or one, in any status or one, walks batches_list_idx (forward for
// the newest end, backward for the oldest, listtotal.Window) and sorts no
// more than the page, in the generic plan pgx's statement cache switches
// to as in a custom plan. The statements with the status in the text as
// "status = $2 unless $2 is empty" got the same plans (no index leads
// with a status); this keeps each case on the list's index.
func TestBatchPagesReadTheListIndex(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "batch_svc", migrations.Sets()...)
	owner := pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	for tenant, n := range map[string]int{"T1": 20_000, "T2": 1_000} {
		testkit.Fill(t, owner, tenant, []string{
			`INSERT INTO batches (id, tenant_id, type, status, total_items, options, created_at, updated_at)
				SELECT $1 || '-b' || i, $1, (ARRAY['contacts', 'receivables', 'payables'])[i % 3 + 1],
					CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'completed' END, 10, '{}',
					now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
		}, n)
	}
	// As autovacuum leaves a table after a bulk of writes.
	if _, err := owner.Exec(ctx, "VACUUM ANALYZE batches"); err != nil {
		t.Fatal(err)
	}
	pool := pg.Pool(t, dsn)
	all := []string{"contacts", "receivables", "payables"}
	for _, l := range []struct {
		name   string
		types  []string
		status batch.Status
	}{
		{"all", all, ""},
		{"failed", all, "failed"},
		{"payables", []string{"payables"}, ""},
	} {
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, order := range []string{"DESC", "ASC"} {
				_, page, args := store.BatchesSQL(l.types, l.status, order)
				plan := testkit.ExplainPrepared(t, pool, "T1", mode, "", page, append(args, 25, 0)...)
				indexed := 0
				plan.Walk(func(n testkit.PlanNode) {
					switch {
					case n.Index == "batches_list_idx":
						indexed++
					case n.Relation == "batches" || n.Index != "":
						t.Errorf("%s page %s, %s: %s read by %s %s", l.name, order, mode, n.Relation, n.NodeType, n.Index)
					}
				})
				if indexed != 1 {
					t.Errorf("%s page %s, %s: %d scans of batches_list_idx, want 1", l.name, order, mode, indexed)
				}
				for _, n := range plan.Plans {
					n.Walk(func(n testkit.PlanNode) {
						if n.NodeType == "Sort" || n.NodeType == "Incremental Sort" {
							t.Errorf("%s page %s, %s: sorts the rows it reads", l.name, order, mode)
						}
					})
				}
			}
		}
	}
}
