package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
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
// created_since does both through receivables_created_idx (backward for a
// page read from the oldest end, listtotal.Window); in the generic
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
		testkit.Fill(t, owner, tenant, []string{
			`INSERT INTO transactions (id, tenant_id, direction, contact_id, status, recipient_phone, created_at, updated_at)
				SELECT $1 || '-t' || i, $1, 'receivable', 'c' || i, $3, '+14155550123',
					now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
			`INSERT INTO receivables (id, tenant_id, transaction_id, contact_id, amount, currency, status, link_ttl_hours,
				created_at, updated_at)
				SELECT $1 || '-r' || i, $1, $1 || '-t' || i, 'c' || i, 1000, 'USD',
					(ARRAY['draft', 'scheduled', 'pending', 'processing', 'paid', 'failed', 'cancelled', 'expired'])[i % 8 + 1], 72,
					now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
		}, n, "pending")
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
		rows, _, args := store.ListSQL(txn.Receivable, l.filter, "DESC")
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
			for _, order := range []string{"DESC", "ASC"} {
				_, page, _ := store.ListSQL(txn.Receivable, l.filter, order)
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
					t.Errorf("%s page %s, %s: %d scans of %s, want 1", l.name, order, mode, indexed, l.index)
				}
			}
		}
	}
}

// TestBatchRowsReadTheRangeOfTheChunk: a chunk's lookup of its recorded
// rows reads the range of its row indexes in transaction_batch_rows_pkey,
// in the generic plan as in a custom one, on a table never analyzed and on
// one analyzed: a plan that reads every row the batch recorded so far
// (row_index as a filter) costs rows recorded × rows asked.
func TestBatchRowsReadTheRangeOfTheChunk(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "transactions", migrations.Sets()...)
	pool := pg.Pool(t, dsn)
	ctx := context.Background()
	testkit.Fill(t, pool, "T1", []string{
		`INSERT INTO transaction_batch_rows (tenant_id, batch_id, row_index, direction, action)
			SELECT $1, 'batch-1', i, 'receivable', 'created' FROM generate_series(0, 4499) i`,
	})
	for _, stats := range []string{"never analyzed", "analyzed"} {
		if stats == "analyzed" {
			if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(ctx, "ANALYZE transaction_batch_rows"); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			plan := testkit.ExplainPrepared(t, pool, "T1", mode, "text, text, int, int", store.BatchRowsSQL,
				"T1", "batch-1", 4500, 4999)
			ranged := 0
			plan.Walk(func(n testkit.PlanNode) {
				if n.Relation != "transaction_batch_rows" {
					return
				}
				if n.Index == "transaction_batch_rows_pkey" && strings.Contains(n.IndexCond, "row_index >=") &&
					strings.Contains(n.IndexCond, "row_index <=") {
					ranged++
					return
				}
				t.Errorf("%s, %s: transaction_batch_rows read by %s %s (Index Cond %q), not by the range of row_index",
					stats, mode, n.NodeType, n.Index, n.IndexCond)
			})
			if ranged != 1 {
				t.Errorf("%s, %s: %d range scans of transaction_batch_rows_pkey", stats, mode, ranged)
			}
		}
	}
}

// TestLockByExternalIDsIsPlannedForItsIDs: a chunk's lookup of live
// receivables by external id runs unprepared (no statement of it stays on
// the connection), so Postgres plans it for the chunk's ids each time,
// with the ids as a constant array it searches through a hash table. A
// prepared statement ends up with a generic plan that compares each item
// it reads with the whole parameter array (on a tenant newer than the
// statistics, every item of the tenant: 75-140 ms per 500-row chunk,
// growing with the tenant). The lookup finds the live items it names
// whatever the statistics.
func TestLockByExternalIDsIsPlannedForItsIDs(t *testing.T) {
	t.Parallel()
	for _, stats := range []string{"never analyzed", "analyzed before the tenant's first item", "analyzed"} {
		t.Run(stats, func(t *testing.T) {
			t.Parallel()
			pg := testkit.PG(t)
			dsn := pg.Database(t, "transactions", migrations.Sets()...)
			owner := pg.Pool(t, pg.OwnerDSN(t, dsn))
			ctx := context.Background()
			fill := func(tenant string) {
				testkit.Fill(t, owner, tenant, []string{
					`INSERT INTO transactions (id, tenant_id, direction, contact_id, status, recipient_phone, recipient_first_name,
						recipient_last_name, created_at, updated_at)
						SELECT $1 || '-t' || i, $1, 'receivable', 'c' || i, 'pending', '+14155550123', 'Ada', 'Lovelace',
							now() - i * interval '1 minute', now() FROM generate_series(1, 3000) i`,
					`INSERT INTO receivables (id, tenant_id, transaction_id, contact_id, external_id, amount, currency, status,
						link_ttl_hours, created_at, updated_at)
						SELECT $1 || '-r' || i, $1, $1 || '-t' || i, 'c' || i, 'inv-' || i, 1000, 'USD', 'pending', 72,
							now() - i * interval '1 minute', now() FROM generate_series(1, 3000) i`,
				})
			}
			analyze := func() {
				if _, err := owner.Exec(ctx, "ANALYZE transactions, receivables"); err != nil {
					t.Fatal(err)
				}
			}
			switch stats {
			case "analyzed before the tenant's first item":
				fill("T2")
				analyze()
				fill("T1")
			case "analyzed":
				fill("T1")
				analyze()
			default:
				fill("T1")
			}
			// A chunk of a batch: mostly new external ids, a few the
			// tenant has.
			ids := make([]string, 500)
			for i := range ids {
				ids[i] = fmt.Sprintf("new-%d", i)
				if i%100 == 0 {
					ids[i] = fmt.Sprintf("inv-%d", 1000+i)
				}
			}
			// More runs than pgx's statement cache takes to switch a
			// prepared statement to its generic plan.
			pool := pg.Pool(t, dsn+"&pool_max_conns=1")
			for range 7 {
				err := store.New(pool).Write(ctx, idempotency.Tx{}, "T1", func(tx *store.Tx) error {
					got, err := tx.LockByExternalIDs(ctx, txn.Receivable, ids)
					if err == nil && len(got) != 5 {
						t.Errorf("found %d receivables, want the 5 the tenant has", len(got))
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			var prepared int
			err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements
				WHERE strpos(statement, 'external' || '_id = ANY') > 0`).Scan(&prepared)
			if err != nil || prepared != 0 {
				t.Errorf("prepared statements of the lookup on the connection: %d, %v; want none", prepared, err)
			}
		})
	}
}
