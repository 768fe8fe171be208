package store_test

import (
	"context"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/migrations"
)

// TestListPagesReadTheirIndex: the page of the unfiltered consents list
// walks consents_list_idx (forward for the newest end, backward for the
// oldest, listtotal.Window) and the page of the messages to a number reads
// messages_to_idx, in the generic plan pgx's statement cache switches to
// as in a custom plan. With each filter in the text as "column = $n
// unless $n is empty", the generic plans read the whole tenant: all its
// consents (through consents_phone_idx or a sequential scan) and a sort of
// them, its messages through messages_created_idx with the number as a
// filter.
func TestListPagesReadTheirIndex(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "optin", migrations.Sets()...)
	owner := pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	for tenant, n := range map[string]int{"T1": 20_000, "T2": 1_000} {
		testkit.Fill(t, owner, tenant, []string{
			`INSERT INTO consents (id, tenant_id, contact_id, phone, status, channel, source, consented_at, created_at, updated_at)
				SELECT $1 || '-c' || i, $1, 'ct' || i, '+1415' || lpad(i::text, 7, '0'),
					(ARRAY['pending', 'confirmed', 'revoked'])[i % 3 + 1], 'sms', 'landing_page',
					now() - i * interval '1 minute', now(), now() FROM generate_series(1, $2::int) i`,
			// 500 numbers, n/500 messages to each.
			`INSERT INTO messages (id, tenant_id, notification_id, kind, to_phone, body, status, provider, created_at, updated_at)
				SELECT $1 || '-m' || i, $1, 'n' || i, 'notification', '+1415555' || lpad((i % 500)::text, 4, '0'), 'text',
					'delivered', 'sink', now() - i * interval '1 minute', now() FROM generate_series(1, $2::int) i`,
		}, n)
	}
	// As autovacuum leaves a table after a bulk of writes.
	if _, err := owner.Exec(ctx, "VACUUM ANALYZE consents, messages"); err != nil {
		t.Fatal(err)
	}
	pool := pg.Pool(t, dsn)
	for _, l := range []struct {
		name, table, index string
		sql                func(order string) (string, []any)
	}{
		{"consents", "consents", "consents_list_idx", func(order string) (string, []any) {
			_, page, args := store.ConsentsSQL(store.ConsentFilter{}, order)
			return page, args
		}},
		{"messages to a number", "messages", "messages_to_idx", func(order string) (string, []any) {
			_, page, args := store.MessagesSQL("+14155550007", order)
			return page, args
		}},
	} {
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, order := range []string{"DESC", "ASC"} {
				page, args := l.sql(order)
				plan := testkit.ExplainPrepared(t, pool, "T1", mode, "", page, append(args, 25, 0)...)
				indexed := 0
				plan.Walk(func(n testkit.PlanNode) {
					switch {
					case n.Index == l.index:
						indexed++
					case n.Relation == l.table || n.Index != "":
						t.Errorf("%s page %s, %s: %s read by %s %s", l.name, order, mode, n.Relation, n.NodeType, n.Index)
					}
				})
				if indexed != 1 {
					t.Errorf("%s page %s, %s: %d scans of %s, want 1", l.name, order, mode, indexed, l.index)
				}
				// The page is sorted at most once: the reversed read's 25
				// rows put back newest first, at the top.
				for i, n := range plan.Plans {
					n.Walk(func(n testkit.PlanNode) {
						if n.NodeType == "Sort" || n.NodeType == "Incremental Sort" {
							t.Errorf("%s page %s, %s: sorts the rows it reads (under node %d of %s)", l.name, order, mode, i, plan.NodeType)
						}
					})
				}
				if plan.NodeType == "Sort" && order == "DESC" {
					t.Errorf("%s page DESC, %s: sorted", l.name, mode)
				}
			}
		}
	}
}
