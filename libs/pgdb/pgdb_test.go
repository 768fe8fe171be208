package pgdb_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func widgets() pgdb.MigrationSet {
	return pgdb.MigrationSet{Name: "widgets", FS: os.DirFS("testdata/widgets")}
}

func TestMigrateConcurrentlyAppliesOnceAndGrants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "pgdb_bare") // no sets: nothing migrated yet
	ownerDSN := pg.OwnerDSN(t, appDSN)

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pgdb.Migrate(ctx, ownerDSN, pgdb.AppRole(appDSN), widgets())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	owner := pg.Pool(t, ownerDSN)
	var versions []int64
	rows, err := owner.Query(ctx, "SELECT version_id FROM goose_widgets WHERE is_applied ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if diff := cmp.Diff([]int64{0, 1, 2}, versions); diff != "" {
		t.Fatalf("goose_widgets versions (-want +got):\n%s", diff)
	}

	app := pg.Pool(t, appDSN)
	var id int64
	if err := app.QueryRow(ctx, "INSERT INTO widgets (sku) VALUES ('a') RETURNING id").Scan(&id); err != nil {
		t.Fatalf("app insert: %v", err)
	}
	if _, err := app.Exec(ctx, "INSERT INTO parts (widget_id) VALUES ($1)", id); err != nil {
		t.Fatalf("app insert into second migration's table: %v", err)
	}
	if _, err := app.Exec(ctx, "DELETE FROM goose_widgets"); err == nil {
		t.Fatal("app role may write the goose version table")
	}
}

func TestMigrateGrantsTablesCreatedLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "pgdb_widgets", widgets())
	owner := pg.Pool(t, pg.OwnerDSN(t, appDSN))
	if _, err := owner.Exec(ctx, "CREATE TABLE later (id bigserial PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Pool(t, appDSN).Exec(ctx, "INSERT INTO later DEFAULT VALUES"); err != nil {
		t.Fatalf("default privileges: %v", err)
	}
}

// TestMigrateGrantsFunctionsRevokedFromPublic: a function a migration keeps
// from PUBLIC (contacts-svc's SECURITY DEFINER search functions) is the app
// role's to run after Migrate, and no other role's.
func TestMigrateGrantsFunctionsRevokedFromPublic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "pgdb_widgets", widgets())
	ownerDSN := pg.OwnerDSN(t, appDSN)
	owner := pg.Pool(t, ownerDSN)
	if _, err := owner.Exec(ctx, "CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 42'; "+
		"REVOKE EXECUTE ON FUNCTION answer() FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}
	app := pg.Pool(t, appDSN)
	if _, err := app.Exec(ctx, "SELECT answer()"); err == nil {
		t.Fatal("the app role ran a function revoked from PUBLIC before Migrate granted it")
	}
	if err := pgdb.Migrate(ctx, ownerDSN, pgdb.AppRole(appDSN), widgets()); err != nil {
		t.Fatal(err)
	}
	var got int
	if err := app.QueryRow(ctx, "SELECT answer()").Scan(&got); err != nil || got != 42 {
		t.Fatalf("answer() as the app role = %d, %v; want 42", got, err)
	}
	var public bool
	if err := owner.QueryRow(ctx, "SELECT has_function_privilege('public', 'answer()', 'EXECUTE')").Scan(&public); err != nil || public {
		t.Fatalf("PUBLIC may execute answer(): %v, %v", public, err)
	}
}

func TestIsUniqueViolation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "pgdb_widgets", widgets()))
	if _, err := pool.Exec(ctx, "INSERT INTO widgets (sku) VALUES ('dup')"); err != nil {
		t.Fatal(err)
	}
	_, dupErr := pool.Exec(ctx, "INSERT INTO widgets (sku) VALUES ('dup')")
	_, fkErr := pool.Exec(ctx, "INSERT INTO parts (widget_id) VALUES (-1)")

	tests := []struct {
		name       string
		err        error
		constraint string
		want       bool
	}{
		{"named constraint", dupErr, "widgets_sku_key", true},
		{"any constraint", dupErr, "", true},
		{"other constraint", dupErr, "widgets_pkey", false},
		{"wrapped", errors.Join(errors.New("context"), dupErr), "widgets_sku_key", true},
		{"foreign key violation", fkErr, "", false},
		{"nil", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pgdb.IsUniqueViolation(tt.err, tt.constraint); got != tt.want {
				t.Errorf("IsUniqueViolation(%v, %q) = %v, want %v", tt.err, tt.constraint, got, tt.want)
			}
		})
	}
}

func TestAppRole(t *testing.T) {
	t.Parallel()
	tests := []struct{ dsn, want string }{
		{"postgres://svc_app:secret@127.0.0.1:5432/svc?sslmode=disable", "svc_app"},
		{"host=127.0.0.1 user=svc_app dbname=svc", "svc_app"},
		{"postgres://%zz@host/db", ""},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			t.Parallel()
			if got := pgdb.AppRole(tt.dsn); got != tt.want {
				t.Errorf("AppRole(%q) = %q, want %q", tt.dsn, got, tt.want)
			}
		})
	}
}

func TestOpenFailsOnUnreachableDatabase(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Cluster().DSN("nobody", "", "nowhere")
	if pool, err := pgdb.Open(context.Background(), dsn, 2); err == nil {
		pool.Close()
		t.Fatal("Open succeeded for a role that does not exist")
	}
}

func TestOpenTurnsJITOffUnlessTheDSNSetsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := testkit.PG(t).Database(t, "pgdb_jit")
	for _, tt := range []struct{ dsn, want string }{
		{dsn, "off"},
		{dsn + sep(dsn) + "jit=on", "on"},
	} {
		pool, err := pgdb.Open(ctx, tt.dsn, 1)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = pool.QueryRow(ctx, "SHOW jit").Scan(&got)
		pool.Close()
		if err != nil || got != tt.want {
			t.Errorf("Open(%s): jit = %q (%v), want %q", tt.dsn, got, err, tt.want)
		}
	}
}

// sep is what joins one more parameter to a URL dsn.
func sep(dsn string) string {
	if strings.Contains(dsn, "?") {
		return "&"
	}
	return "?"
}
