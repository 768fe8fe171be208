package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/testkit"
)

// fillTenant commits count contacts (each with its phone record and an
// external id) of tenant, from the app pool, without analyzing.
func fillTenant(t *testing.T, pool *pgxpool.Pool, tenant string, from, to int) {
	t.Helper()
	testkit.Fill(t, pool, tenant, []string{
		`INSERT INTO phones (id, tenant_id, e164) SELECT $1 || '-p' || i, $1, '+1415' || (2000000 + i)
			FROM generate_series($2::int, $3::int) i`,
		`INSERT INTO contacts (id, tenant_id, external_id, first_name, phone_id, created_at, updated_at)
			SELECT $1 || '-c' || i, $1, 'crm-' || i, 'Ada', $1 || '-p' || i, now(), now()
			FROM generate_series($2::int, $3::int) i`,
	}, from, to)
}

// TestBulkLookupsProbeTheIdentityIndexInEveryPlan: a batch chunk's lookups
// of live contacts by external id and by phone record are one probe of the
// identity index (contacts_external_id_key, contacts_phone_key) per id, in
// the generic plan pgx's statement cache switches to after five executions
// as in a custom plan, whether the table was never analyzed or analyzed
// while it was nearly empty (a new tenant's first batches, before
// autovacuum). A plan that reads the tenant's contacts (a Seq Scan, the
// created_at index, or the identity index by tenant alone) and compares each
// with the chunk's ids costs contacts × ids: with the 6,000 contacts here a
// 500-id lookup by phone took 53 ms that way, 2 ms by probes.
func TestBulkLookupsProbeTheIdentityIndexInEveryPlan(t *testing.T) {
	t.Parallel()
	lookups := []struct {
		name, sql, index, cond string
		arg                    func(i int) string
	}{
		{"by external id", store.LiveByExternalIDsSQL, "contacts_external_id_key", "external_id = x.external_id",
			func(i int) string { return fmt.Sprintf("crm-%d", i) }},
		{"phone owners", store.LivePhoneOwnersSQL, "contacts_phone_key", "phone_id = x.phone_id",
			func(i int) string { return fmt.Sprintf("%s-p%d", tenantA, i) }},
	}
	for _, stats := range []string{"never analyzed", "analyzed when small", "analyzed before the tenant's first contact"} {
		t.Run(stats, func(t *testing.T) {
			t.Parallel()
			pg := testkit.PG(t)
			dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
			pool := pg.Pool(t, dsn)
			ctx := context.Background()
			first := 1
			if stats == "analyzed when small" {
				for _, tenant := range []string{tenantA, tenantB} {
					fillTenant(t, pool, tenant, 1, 20)
				}
				if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(ctx, "ANALYZE contacts, phones"); err != nil {
					t.Fatal(err)
				}
				first = 21
			}
			tenants := []string{tenantA, tenantB}
			if stats == "analyzed before the tenant's first contact" {
				// Statistics that know only another tenant: the
				// lookups' tenant is new (no most-common value).
				fillTenant(t, pool, tenantB, 1, 3000)
				if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(ctx, "ANALYZE contacts, phones"); err != nil {
					t.Fatal(err)
				}
				tenants = []string{tenantA}
			}
			for _, tenant := range tenants {
				fillTenant(t, pool, tenant, first, 3000)
			}
			for _, l := range lookups {
				ids := make([]string, 500)
				for i := range ids {
					ids[i] = l.arg(2000 + 2*i)
				}
				for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
					plan := testkit.ExplainPrepared(t, pool, tenantA, mode, "text, text[]", l.sql, tenantA, ids)
					probes := 0
					plan.Walk(func(n testkit.PlanNode) {
						if n.Relation == "phones" && (n.Index != "phones_pkey" || !strings.Contains(n.IndexCond, "id = c.phone_id")) {
							t.Errorf("%s, %s: phones read by %s %s (Index Cond %q), not probed by c.phone_id",
								l.name, mode, n.NodeType, n.Index, n.IndexCond)
						}
						if n.Relation != "contacts" {
							return
						}
						if n.Index == l.index && strings.Contains(n.IndexCond, l.cond) {
							probes++
							return
						}
						t.Errorf("%s, %s: contacts read by %s %s (Index Cond %q), not probed by %s",
							l.name, mode, n.NodeType, n.Index, n.IndexCond, l.cond)
					})
					if probes != 1 {
						t.Errorf("%s, %s: %d probes of %s by %s", l.name, mode, probes, l.index, l.cond)
					}
				}
			}
		})
	}
}

// TestBatchRowsReadTheRangeOfTheChunk: a chunk's lookup of its recorded
// rows reads the range of its row indexes in contact_batch_rows_pkey, in
// the generic plan as in a custom one, on a table never analyzed and on
// one analyzed: a plan that reads every row the batch recorded so far
// (row_index as a filter) costs rows recorded × rows asked, which grew with
// every chunk of a large batch.
func TestBatchRowsReadTheRangeOfTheChunk(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
	pool := pg.Pool(t, dsn)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, q := range []string{
		`SELECT set_config('app.tenant_id', $1, true)`,
		`INSERT INTO contact_batch_rows (tenant_id, batch_id, row_index, action)
			SELECT $1, 'batch-1', i, 'created' FROM generate_series(0, 9499) i`,
	} {
		if _, err := tx.Exec(ctx, q, tenantA); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, stats := range []string{"never analyzed", "analyzed"} {
		if stats == "analyzed" {
			if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(ctx, "ANALYZE contact_batch_rows"); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			plan := testkit.ExplainPrepared(t, pool, tenantA, mode, "text, text, int, int", store.BatchRowsSQL,
				tenantA, "batch-1", 9500, 9999)
			ranged := 0
			plan.Walk(func(n testkit.PlanNode) {
				if n.Relation != "contact_batch_rows" {
					return
				}
				if n.Index == "contact_batch_rows_pkey" && strings.Contains(n.IndexCond, "row_index >=") &&
					strings.Contains(n.IndexCond, "row_index <=") {
					ranged++
					return
				}
				t.Errorf("%s, %s: contact_batch_rows read by %s %s (Index Cond %q), not by the range of row_index",
					stats, mode, n.NodeType, n.Index, n.IndexCond)
			})
			if ranged != 1 {
				t.Errorf("%s, %s: %d range scans of contact_batch_rows_pkey", stats, mode, ranged)
			}
		}
	}
}
