package listtotal_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// rows is a list of entries, filtered by status when $1 is not empty, as a
// service writes it: the tenant is row-level security's.
const rows = `SELECT 1 FROM entries WHERE ($1 = '' OR status = $1)`

// db returns the app-role pool and the owner pool of a new database.
func db(t *testing.T) (app, owner *pgxpool.Pool) {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "listtotal", pgdb.MigrationSet{Name: "entries", FS: os.DirFS("testdata/migrations")})
	return pg.Pool(t, dsn), pg.Pool(t, pg.OwnerDSN(t, dsn))
}

// fill adds n entries to tenant, one in five pending, the others paid.
func fill(t *testing.T, pool *pgxpool.Pool, tenant string, n int) {
	t.Helper()
	err := tenancy.Do(context.Background(), pool, tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), `INSERT INTO entries (tenant_id, status)
			SELECT $1, CASE WHEN i % 5 = 0 THEN 'pending' ELSE 'paid' END FROM generate_series(1, $2) i`, tenant, n)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func analyze(t *testing.T, owner *pgxpool.Pool) {
	t.Helper()
	if _, err := owner.Exec(context.Background(), "ANALYZE entries"); err != nil {
		t.Fatal(err)
	}
}

// count is c.Count of rows in tenant's scope.
func count(t *testing.T, pool *pgxpool.Pool, c listtotal.Cap, tenant, status string) listtotal.Total {
	t.Helper()
	var total listtotal.Total
	err := tenancy.Read(context.Background(), pool, tenant, func(tx pgx.Tx) error {
		var err error
		total, err = c.Count(context.Background(), tx, rows, status)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// Up to the cap the total is exact and counts the tenant's matching rows
// only: another tenant's rows, many more than the cap, are never counted.
func TestCountIsExactUpToTheCap(t *testing.T) {
	t.Parallel()
	app, _ := db(t)
	fill(t, app, "tenant-a", 50)
	fill(t, app, "tenant-b", 500)
	for _, tc := range []struct {
		name   string
		cap    listtotal.Cap
		status string
		want   listtotal.Total
	}{
		{"below the cap", 100, "", listtotal.Total{N: 50}},
		{"at the cap", 50, "", listtotal.Total{N: 50}},
		{"filtered below the cap", 20, "pending", listtotal.Total{N: 10}},
		{"the default cap", 0, "paid", listtotal.Total{N: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, count(t, app, tc.cap, "tenant-a", tc.status)); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
		})
	}
}

// Above the cap the total is the planner's estimate of the tenant's
// matching rows, from the tenant's own statistics: not the table's (the
// other tenant's rows), not the tenant's unfiltered rows.
func TestCountEstimatesAboveTheCap(t *testing.T) {
	t.Parallel()
	app, owner := db(t)
	fill(t, app, "tenant-a", 3000)
	fill(t, app, "tenant-b", 9000)
	analyze(t, owner)
	for _, tc := range []struct {
		name     string
		status   string
		min, max int
	}{
		{"unfiltered", "", 2400, 3600},
		{"by status", "pending", 480, 720},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := count(t, app, 100, "tenant-a", tc.status)
			if !got.Estimated || got.N < tc.min || got.N > tc.max {
				t.Errorf("total = %+v, want an estimate within [%d, %d] (real: %d)", got, tc.min, tc.max, tc.min*5/4)
			}
		})
	}
}

// The count and the estimate are not prepared: pgx's statement cache would
// leave them to a generic plan after five executions.
func TestCountIsNotPrepared(t *testing.T) {
	t.Parallel()
	app, owner := db(t)
	fill(t, app, "tenant-a", 30)
	analyze(t, owner)
	ctx := context.Background()
	err := tenancy.Read(ctx, app, "tenant-a", func(tx pgx.Tx) error {
		for range 7 {
			if _, err := listtotal.Cap(10).Count(ctx, tx, rows, "pending"); err != nil {
				return err
			}
		}
		var prepared int
		// The count's text is a parameter: this statement, prepared, must
		// not match itself.
		err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE strpos(statement, $1) > 0`,
			listtotal.Cap(10).SQL(rows)).Scan(&prepared)
		if err == nil && prepared != 0 {
			t.Errorf("%d prepared statements of the count, want none", prepared)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An estimate below the cap (statistics from before the tenant's rows) is
// raised to cap+1: the total never claims fewer rows than were counted.
func TestCountEstimateIsAtLeastCapPlusOne(t *testing.T) {
	t.Parallel()
	app, owner := db(t)
	fill(t, app, "tenant-b", 5000)
	analyze(t, owner)
	fill(t, app, "tenant-a", 300)
	if diff := cmp.Diff(listtotal.Total{N: 101, Estimated: true}, count(t, app, 100, "tenant-a", "")); diff != "" {
		t.Errorf("total (-want +got):\n%s", diff)
	}
}

// The estimate is of the scope's tenant, by the tenant's statistics, even
// where a cached statement would run a generic plan: the same statement
// estimates each tenant by its own rows, and a filter by its value.
func TestEstimateUsesTheArgumentsInAGenericPlan(t *testing.T) {
	t.Parallel()
	app, owner := db(t)
	fill(t, app, "tenant-a", 3000)
	fill(t, app, "tenant-b", 9000)
	analyze(t, owner)
	ctx := context.Background()
	for i := range 8 {
		tenant, status, lo, hi := "tenant-a", "", 2400, 3600
		if i%2 == 1 {
			tenant, lo, hi = "tenant-b", 7200, 10800
		}
		if i%4 == 3 {
			status, lo, hi = "pending", 1440, 2160
		}
		err := tenancy.Read(ctx, app, tenant, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				return err
			}
			n, err := listtotal.Estimate(ctx, tx, rows, status)
			if err == nil && (n < lo || n > hi) {
				t.Errorf("run %d: estimate of %s %q = %d, want within [%d, %d]", i, tenant, status, n, lo, hi)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// CountWith asks its estimator only for a list of more than the cap rows,
// with the list's statement and arguments, and keeps the total at least
// cap+1; a Memo estimates by its Estimate.
func TestCountWithUsesTheEstimatorAboveTheCap(t *testing.T) {
	t.Parallel()
	app, _ := db(t)
	fill(t, app, "tenant-a", 300)
	var asked []string
	estimate := func(n int) listtotal.Estimator {
		return func(ctx context.Context, q listtotal.Querier, rows string, args ...any) (int, error) {
			asked = append(asked, rows+" "+args[0].(string))
			return n, nil
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		cap    listtotal.Cap
		status string
		est    int
		want   listtotal.Total
		asked  int
	}{
		{"at most the cap: exact, not asked", 300, "", 7, listtotal.Total{N: 300}, 0},
		{"above the cap: the estimator's", 50, "pending", 250, listtotal.Total{N: 250, Estimated: true}, 1},
		{"an estimate below the cap: cap+1", 100, "", 7, listtotal.Total{N: 101, Estimated: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			var got listtotal.Total
			err := tenancy.Read(ctx, app, "tenant-a", func(tx pgx.Tx) error {
				var err error
				got, err = tc.cap.CountWith(ctx, tx, estimate(tc.est), rows, tc.status)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
			if len(asked) != tc.asked || (tc.asked == 1 && asked[0] != rows+" "+tc.status) {
				t.Errorf("estimator asked %q, want %d time(s) for the list's rows and arguments", asked, tc.asked)
			}
		})
	}
	t.Run("memo", func(t *testing.T) {
		asked = nil
		m := &listtotal.Memo{Estimate: estimate(4321)}
		if got := memoCount(t, app, m, "tenant-a", ""); got != (listtotal.Total{N: 4321, Estimated: true}) {
			t.Errorf("memo total = %+v, want the Estimate's 4321", got)
		}
	})
}
