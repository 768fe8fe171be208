package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/migrations"
)

// TestDispatchStatementsProbeTheirKeys: the dispatcher's statements that
// take a list of messages or numbers (reading the leased messages, the
// suppression check, the update of the messages) probe the key once per
// element, in the generic plan pgx's statement cache switches to as in a
// custom plan, on tables never analyzed and analyzed: joined to the list
// as a whole (id = ANY, a join, EXISTS) they read the tenant's messages or
// suppressions and compared each with the list. Not covered: a tenant
// whose rows came after the last ANALYZE while the statistics of tenant_id
// name other tenants only; the planner then expects no row of it, and
// these statements, like Message and IsSuppressed for one id or number,
// may read the tenant through messages_created_idx or
// suppressions_list_idx (docs/benchmarks.md, finding 8).
func TestDispatchStatementsProbeTheirKeys(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "optin", migrations.Sets()...)
	pool, owner := pg.Pool(t, dsn), pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	fill := func(tenant string) {
		t.Helper()
		testkit.Fill(t, pool, tenant, []string{
			`INSERT INTO messages (id, tenant_id, notification_id, kind, to_phone, body, status, provider, created_at, updated_at)
				SELECT $1 || i, $1, 'n' || i, 'notification', '+1415555' || lpad(i::text, 4, '0'), 'text', 'delivered', 'sink', now(), now()
				FROM generate_series(1, 5000) i`,
			`INSERT INTO suppressions (id, tenant_id, phone, reason, channel, source, created_at)
				SELECT $1 || i, $1, '+1415555' || lpad(i::text, 4, '0'), 'manual', 'sms', 'api', now()
				FROM generate_series(1, 5000, 2) i`,
		})
	}
	ids, phones := []string{"1", "2", "3"}, []string{"+14155550001", "+14155550002"}
	now := time.Now()
	texts := []string{"a", "b", "c"}
	stamps := []*time.Time{&now, nil, &now}
	statements := []struct {
		name, sql, types, index, cond string
		args                          []any
	}{
		{"messages for update", store.MessagesForUpdateSQL, "text[]", "messages_pkey", "id = x.message_id", []any{ids}},
		{"suppressed among", store.SuppressedAmongSQL, "text[], text", "suppressions_phone_channel_key", "phone = p.phone",
			[]any{phones, "sms"}},
		{"update messages", store.UpdateMessagesSQL, "", "messages_pkey", "id = u.id",
			[]any{ids, texts, []string{"sent", "sent", "sent"}, texts, texts, []int32{1, 1, 1}, texts, stamps, stamps, stamps,
				[]time.Time{now, now, now}}},
	}
	fill("tn_plan")
	for _, analyzed := range []string{"never analyzed", "analyzed"} {
		if analyzed == "analyzed" {
			if _, err := owner.Exec(ctx, `ANALYZE messages; ANALYZE suppressions`); err != nil {
				t.Fatal(err)
			}
		}
		const tenant = "tn_plan"
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			for _, st := range statements {
				probes := 0
				plan := testkit.ExplainPrepared(t, pool, tenant, mode, st.types, st.sql, st.args...)
				plan.Walk(func(n testkit.PlanNode) {
					if n.Relation != "messages" && n.Relation != "suppressions" && n.Index == "" || n.NodeType == "ModifyTable" ||
						n.NodeType == "Tid Scan" {
						return // a Tid Scan reads the row a probe found
					}
					if n.Index == st.index && strings.Contains(n.IndexCond, st.cond) {
						probes++
						return
					}
					t.Errorf("%s, %s, %s: %s read by %s %s (Index Cond %q), not probed by %s", st.name, mode, analyzed,
						n.Relation, n.NodeType, n.Index, n.IndexCond, st.index)
				})
				if probes != 1 {
					t.Errorf("%s, %s, %s: %d probes of %s, want 1", st.name, mode, analyzed, probes, st.index)
				}
			}
		}
	}
}
