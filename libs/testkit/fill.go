package testkit

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// placeholder is a statement's parameter reference.
var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// Fill runs stmts in one transaction on pool in tenant's scope (the
// row-level security policies' app.tenant_id): each statement gets tenant
// as $1 and args as $2 on, up to the highest parameter its text names (so
// it names each of $1 to that one, or Postgres cannot type the others). A
// plan test fills its tenants this way before VACUUM ANALYZE.
func Fill(t testing.TB, pool *pgxpool.Pool, tenant string, stmts []string, args ...any) {
	t.Helper()
	ctx := context.Background()
	tx := tenantTx(t, pool, tenant)
	defer tx.Rollback(ctx)
	for _, q := range stmts {
		n := 0
		for _, m := range placeholder.FindAllStringSubmatch(q, -1) {
			if k, _ := strconv.Atoi(m[1]); k > n {
				n = k
			}
		}
		if n-1 > len(args) {
			t.Fatalf("%s refers to $%d; Fill has %d arguments after the tenant", q, n, len(args))
		}
		params := append([]any{tenant}, args[:max(n-1, 0)]...)
		if n == 0 {
			params = nil
		}
		if _, err := tx.Exec(ctx, q, params...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// tenantTx begins a transaction on pool in tenant's scope (app.tenant_id,
// which the row-level security policies read, until it ends).
func tenantTx(t testing.TB, pool *pgxpool.Pool, tenant string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT set_config('app.tenant_id', $1, true)", tenant); err != nil {
		tx.Rollback(ctx)
		t.Fatal(err)
	}
	return tx
}
