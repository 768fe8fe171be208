package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/testkit"
)

// listPlanRows is the tenant of the list's plan test. The planner takes
// any tenant for 0.5 % of the table (migration 00006), so in a table this
// small it may read the ids of the page by a bitmap of contacts_list_idx
// and sort them instead of the index-only scan it chooses for a million
// contacts.
const listPlanRows = 20_000

// TestListReadsThePageThroughTheListIndex: a list of live contacts counts them
// without phones, finds the ids of its page through contacts_list_idx
// (migration 00007), and reads the rows of the page alone by primary key,
// joined to their phones by primary key; in the generic plan pgx's
// statement cache switches to as in a custom plan, the page in the middle
// of the tenant. Page 500 of 100 in a tenant of a million contacts read
// 50,000 contacts and their phones before, by hash joins over the whole
// tenant (docs/benchmarks.md, "Data growth"); there the ids come from an
// index-only scan of contacts_list_idx, forward for a page read from the
// newest end and backward for one read from the oldest (listtotal.Window).
func TestListReadsThePageThroughTheListIndex(t *testing.T) {
	t.Parallel()
	for _, size := range []int{listPlanRows} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			t.Parallel()
			pg := testkit.PG(t)
			dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
			pool := pg.Pool(t, dsn)
			ctx := context.Background()
			fillTenant(t, pool, tenantA, 1, size)
			fillTenant(t, pool, tenantB, 1, 1000)
			// As autovacuum leaves a table after a bulk of writes: the
			// visibility map set, statistics gathered.
			if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(ctx, "VACUUM ANALYZE contacts, phones"); err != nil {
				t.Fatal(err)
			}
			rows, _, args := store.ContactsListSQL(store.Filter{})
			count := listtotal.DefaultCap.SQL(rows)
			args[0] = tenantA
			for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
				testkit.ExplainPrepared(t, pool, tenantA, mode, "", count, args...).Walk(func(n testkit.PlanNode) {
					if n.Relation == "phones" {
						t.Errorf("count, %s: joins phones (%s)", mode, n.NodeType)
					}
					// A bitmap heap scan skips the heap's all-visible
					// pages for a count, as an index-only scan does.
					if n.Relation == "contacts" && n.NodeType != "Index Only Scan" && n.NodeType != "Bitmap Heap Scan" {
						t.Errorf("count, %s: contacts read by %s %s, not through an index alone", mode, n.NodeType, n.Index)
					}
				})
				for _, order := range []string{"DESC", "ASC"} {
					_, page, _ := store.ContactsListSQLOrder(store.Filter{}, order)
					listed := 0
					testkit.ExplainPrepared(t, pool, tenantA, mode, "", page, append(args, 100, size/2)...).Walk(func(n testkit.PlanNode) {
						switch {
						case n.Index == "contacts_list_idx" && (n.NodeType == "Index Only Scan" || n.NodeType == "Bitmap Index Scan"):
							listed++
						case n.NodeType == "Bitmap Index Scan":
							t.Errorf("page, %s: the tenant's contacts found by %s (Index Cond %q)", mode, n.Index, n.IndexCond)
						case n.Relation == "contacts" && n.NodeType == "Bitmap Heap Scan":
							// the ids of the page, read through its bitmap
						case n.Relation == "contacts" && n.Index == "contacts_pkey" && strings.HasPrefix(n.IndexCond, "(id = "):
						case n.Relation == "phones" && n.Index == "phones_pkey" && strings.HasSuffix(n.IndexCond, ".phone_id)"):
						case n.Relation != "":
							t.Errorf("page, %s: %s read by %s %s (Index Cond %q)", mode, n.Relation, n.NodeType, n.Index, n.IndexCond)
						}
					})
					if listed != 1 {
						t.Errorf("page %s, %s: %d scans of contacts_list_idx, want 1", order, mode, listed)
					}
				}
			}
		})
	}
}
