package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// TestExternalIDLookupProbesTheIndexWithStaleStatistics: a batch chunk
// looks its external ids up one index probe each, even with the generic
// plan of a table analyzed while it was empty (a new tenant's first batch,
// before autovacuum): the index condition names the external id, so the
// lookup does not scan the tenant's contacts.
func TestExternalIDLookupProbesTheIndexWithStaleStatistics(t *testing.T) {
	t.Parallel()
	_, pool := newStore(t)
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, q := range []string{
		"SELECT set_config('app.tenant_id', '" + tenantA + "', true)",
		`INSERT INTO phones (id, tenant_id, e164) SELECT 'p' || i, $1, '+1415' || (2000000 + i) FROM generate_series(1, 3000) i`,
		`INSERT INTO contacts (id, tenant_id, external_id, first_name, phone_id, created_at, updated_at)
			SELECT 'c' || i, $1, 'crm-' || i, 'Ada', 'p' || i, now(), now() FROM generate_series(1, 3000) i`,
		"SET LOCAL plan_cache_mode = force_generic_plan",
	} {
		args := []any{tenantA}
		if !strings.Contains(q, "$1") {
			args = nil
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var plan strings.Builder
	rows, err := tx.Query(ctx, "EXPLAIN "+store.LiveByExternalIDsSQL, pgx.QueryExecModeExec, tenantA, []string{"crm-1", "crm-2"})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "external_id = x.external_id") || !strings.Contains(plan.String(), "Index Cond") {
		t.Errorf("the lookup does not probe the index by external id:\n%s", plan.String())
	}
}
