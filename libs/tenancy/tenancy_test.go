package tenancy_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func items() pgdb.MigrationSet {
	return pgdb.MigrationSet{Name: "items", FS: os.DirFS("testdata/migrations")}
}

// onePool returns an app-role pool with a single connection, so every call
// reuses the connection the previous one used.
func onePool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "tenancy", items())
	pool, err := pgdb.Open(context.Background(), dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func insert(ctx context.Context, pool *pgxpool.Pool, tenant string, names ...string) error {
	return tenancy.Do(ctx, pool, tenant, func(tx pgx.Tx) error {
		for _, n := range names {
			if _, err := tx.Exec(ctx, "INSERT INTO items (tenant_id, name) VALUES ($1, $2)", tenant, n); err != nil {
				return err
			}
		}
		return nil
	})
}

func names(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) ([]string, error) {
	rows, err := q.Query(ctx, "SELECT name FROM items ORDER BY id")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func readNames(ctx context.Context, pool *pgxpool.Pool, tenant string) ([]string, error) {
	var got []string
	err := tenancy.Read(ctx, pool, tenant, func(tx pgx.Tx) error {
		var err error
		got, err = names(ctx, tx)
		return err
	})
	return got, err
}

func TestScopeHidesOtherTenantsAndUnscopedQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	if err := insert(ctx, pool, "tenant-a", "a1", "a2"); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, pool, "tenant-b", "b1"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		tenant string
		want   []string
	}{
		{"tenant-a", []string{"a1", "a2"}},
		{"tenant-b", []string{"b1"}},
		{"tenant-c", []string{}},
	}
	for _, tt := range tests {
		got, err := readNames(ctx, pool, tt.tenant)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s sees (-want +got):\n%s", tt.tenant, diff)
		}
	}
	// Same single connection, no scope: the setting did not outlive its transaction.
	got, err := names(ctx, pool)
	if err != nil || len(got) != 0 {
		t.Fatalf("unscoped query sees %v, %v", got, err)
	}
}

func TestWriteForAnotherTenantIsRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	err := tenancy.Do(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO items (tenant_id, name) VALUES ('tenant-b', 'smuggled')")
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("err = %v; want a row-level security violation", err)
	}
	if got, _ := readNames(ctx, pool, "tenant-b"); len(got) != 0 {
		t.Fatalf("tenant-b sees %v", got)
	}
}

func TestDoRollsBackOnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	boom := errors.New("boom")
	err := tenancy.Do(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO items (tenant_id, name) VALUES ('tenant-a', 'lost')"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got, err := readNames(ctx, pool, "tenant-a"); err != nil || len(got) != 0 {
		t.Fatalf("after rollback tenant-a sees %v, %v", got, err)
	}
}

func TestReadIsReadOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	err := tenancy.Read(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO items (tenant_id, name) VALUES ('tenant-a', 'x')")
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25006" {
		t.Fatalf("err = %v; want read_only_sql_transaction", err)
	}
}

func TestInvalidTenantIDsAreRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	for _, id := range []string{"", "a\x00b", "line\nbreak"} {
		called := false
		err := tenancy.Do(ctx, pool, id, func(pgx.Tx) error { called = true; return nil })
		if !errors.Is(err, tenancy.ErrTenantID) || called {
			t.Errorf("Do(%q): err = %v, called = %v", id, err, called)
		}
	}
	// A quote in the id is data, not SQL.
	if err := insert(ctx, pool, "o'brien", "quoted"); err != nil {
		t.Fatal(err)
	}
	if got, err := readNames(ctx, pool, "o'brien"); err != nil || !cmp.Equal(got, []string{"quoted"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestBatchRunsScopedAndAtomically(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	if err := insert(ctx, pool, "tenant-b", "b1"); err != nil {
		t.Fatal(err)
	}

	b := &pgx.Batch{}
	b.Queue("INSERT INTO items (tenant_id, name) VALUES ('tenant-a', 'a1')")
	var count int
	b.Queue("SELECT count(*) FROM items").QueryRow(func(row pgx.Row) error { return row.Scan(&count) })
	if err := tenancy.Batch(ctx, pool, "tenant-a", b); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Fatalf("tenant-a counted %d rows, want 1 (its own)", count)
	}
	// The scope ended with the batch: the pool's one connection holds no
	// tenant afterwards, and is idle (committed).
	var after *string
	if err := pool.QueryRow(ctx, "SELECT nullif(current_setting('"+tenancy.Setting+"', true), '')").Scan(&after); err != nil || after != nil {
		t.Fatalf("after the batch the connection's tenant setting is %v (%v), want none", after, err)
	}
	if got, err := readNames(ctx, pool, "tenant-a"); err != nil || !cmp.Equal(got, []string{"a1"}) {
		t.Fatalf("the batch's insert is not committed: %v, %v", got, err)
	}

	bad := &pgx.Batch{}
	bad.Queue("INSERT INTO items (tenant_id, name) VALUES ('tenant-a', 'a2')")
	bad.Queue("INSERT INTO items (tenant_id, name) VALUES ('tenant-b', 'smuggled')")
	if err := tenancy.Batch(ctx, pool, "tenant-a", bad); err == nil {
		t.Fatal("batch writing another tenant's row succeeded")
	}
	// The single connection is clean again and a2 was rolled back with the failure.
	got, err := readNames(ctx, pool, "tenant-a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1"}, got); diff != "" {
		t.Fatalf("tenant-a rows (-want +got):\n%s", diff)
	}
}

func TestPolicySQLAppliesRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "tenancy", items())
	owner := pg.Pool(t, pg.OwnerDSN(t, appDSN))
	sql := "CREATE TABLE notes (tenant_id text NOT NULL, body text NOT NULL);\n" +
		tenancy.PolicySQL("notes") +
		"INSERT INTO notes VALUES ('tenant-a', 'hidden from the owner too')"
	if _, err := owner.Exec(ctx, sql); err == nil {
		t.Fatal("FORCE row level security let the owner insert without a scope")
	}
	if _, err := owner.Exec(ctx, "CREATE TABLE notes (tenant_id text NOT NULL, body text NOT NULL);\n"+tenancy.PolicySQL("notes")); err != nil {
		t.Fatal(err)
	}
	app := pg.Pool(t, appDSN)
	if err := tenancy.Do(ctx, app, "tenant-a", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO notes VALUES ('tenant-a', 'mine')")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := app.QueryRow(ctx, "SELECT count(*) FROM notes").Scan(&n); err != nil || n != 0 {
		t.Fatalf("unscoped count = %d, %v", n, err)
	}
}
