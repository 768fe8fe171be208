package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

// TestStatusListReadsTheStatusIndex: a list of receivables filtered by
// status counts them (at most the cap, listtotal) from
// receivables_status_list_idx (migration 00010) alone, without their
// transactions, and reads its page through the same index; one filtered by
// created_since does both through receivables_created_idx; in the generic
// plan pgx's statement cache switches to as in a custom plan, and never in
// parallel (a worker start per page). With a million receivables in a tenant the count joined
// every pending receivable with its transaction (1.4 s; docs/benchmarks.md,
// "Data growth").
func TestStatusListReadsTheStatusIndex(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "transactions", migrations.Sets()...)
	owner := pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	for tenant, n := range map[string]int{"T1": 20_000, "T2": 1_000, "T3": 1_000, "T4": 1_000, "T5": 1_000} {
		tx, err := owner.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SELECT set_config('app.tenant_id', $1, true)", tenant); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`INSERT INTO transactions (id, tenant_id, direction, contact_id, status, recipient_phone, created_at, updated_at)
				SELECT $1 || '-t' || i, $1, 'receivable', 'c' || i, $3, '+14155550123',
					now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
			`INSERT INTO receivables (id, tenant_id, transaction_id, contact_id, amount, currency, status, link_ttl_hours,
				created_at, updated_at)
				SELECT $1 || '-r' || i, $1, $1 || '-t' || i, 'c' || i, 1000, 'USD',
					(ARRAY['draft', 'scheduled', 'pending', 'processing', 'paid', 'failed', 'cancelled', 'expired'])[i % 8 + 1], 72,
					now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
		} {
			args := []any{tenant, n}
			if strings.Contains(q, "$3") {
				args = append(args, "pending")
			}
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// As autovacuum leaves a table after a bulk of writes.
	if _, err := owner.Exec(ctx, "VACUUM ANALYZE transactions, receivables"); err != nil {
		t.Fatal(err)
	}
	pool := pg.Pool(t, dsn)
	// A tenth of T1's receivables (one a minute), as 30 days are of the
	// large tenant's in the benchmark.
	since := time.Now().Add(-2000 * time.Minute)
	for _, l := range []struct {
		name   string
		filter store.Filter
		index  string
	}{
		{"status", store.Filter{Status: "failed"}, "receivables_status_list_idx"},
		{"created_since", store.Filter{CreatedSince: &since}, "receivables_created_idx"},
	} {
		rows, page, args := store.ListSQL(txn.Receivable, l.filter)
		count := listtotal.DefaultCap.SQL(rows)
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			indexed := 0
			// listtotal sends the count unprepared, so Postgres plans it
			// with its values: its generic plan (a sequential scan for a
			// date range taken for a third of the table) never runs.
			countMode := "force_custom_plan"
			testkit.ExplainPrepared(t, pool, "T1", countMode, "", count, args...).Walk(func(n testkit.PlanNode) {
				switch {
				case n.Relation == "transactions":
					t.Errorf("%s count, %s: joins transactions (%s)", l.name, mode, n.NodeType)
				case n.Index == l.index:
					indexed++
				case n.Relation == "receivables" && n.NodeType != "Bitmap Heap Scan":
					t.Errorf("%s count, %s: receivables read by %s %s", l.name, mode, n.NodeType, n.Index)
				}
			})
			if indexed != 1 {
				t.Errorf("%s count, %s: %d scans of %s, want 1", l.name, mode, indexed, l.index)
			}
			indexed = 0
			testkit.ExplainPrepared(t, pool, "T1", mode, "", page, append(args, 25, 0)...).Walk(func(n testkit.PlanNode) {
				switch {
				case strings.HasPrefix(n.NodeType, "Gather"):
					t.Errorf("%s page, %s: a parallel plan (%s)", l.name, mode, n.NodeType)
				case n.Index == l.index:
					indexed++
				// The page's own items, read by id.
				case n.Relation == "receivables" && n.Index == "receivables_pkey" && strings.HasPrefix(n.IndexCond, "(id = "):
				case n.Relation == "receivables":
					t.Errorf("%s page, %s: receivables read by %s %s (Index Cond %q)", l.name, mode, n.NodeType, n.Index, n.IndexCond)
				}
			})
			if indexed != 1 {
				t.Errorf("%s page, %s: %d scans of %s, want 1", l.name, mode, indexed, l.index)
			}
		}
	}
}
