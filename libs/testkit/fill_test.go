package testkit_test

import (
	"context"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
)

// TestFillRunsInTheTenantsScope: Fill's statements see the tenant as
// app.tenant_id and as $1, and the arguments after it as $2 on; a
// statement without parameters gets none; all of them commit together.
func TestFillRunsInTheTenantsScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "notes", notes()))
	testkit.Fill(t, pool, "T1", []string{
		`INSERT INTO notes (body) SELECT $1 || ':' || current_setting('app.tenant_id') || ':' || i FROM generate_series(1, $2::int) i`,
		`INSERT INTO notes (body) VALUES ('plain')`,
		`INSERT INTO notes (body) VALUES ($1 || ':' || $2::int::text || ':' || $3)`,
	}, 3, "third")
	var bodies []string
	rows, err := pool.Query(ctx, "SELECT body FROM notes ORDER BY body")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	want := []string{"T1:3:third", "T1:T1:1", "T1:T1:2", "T1:T1:3", "plain"}
	if len(bodies) != len(want) {
		t.Fatalf("notes = %v, want %v", bodies, want)
	}
	for i := range want {
		if bodies[i] != want[i] {
			t.Fatalf("notes = %v, want %v", bodies, want)
		}
	}
}
