package listtotal_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/tenancy"
)

func memoCount(t *testing.T, pool *pgxpool.Pool, m *listtotal.Memo, tenant, status string) listtotal.Total {
	t.Helper()
	var total listtotal.Total
	err := tenancy.Read(context.Background(), pool, tenant, func(tx pgx.Tx) error {
		var err error
		total, err = m.Count(context.Background(), tx, 100, tenant, rows, status)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// A Memo answers a list's estimated total again without counting, for
// MemoTTL, per tenant and filter; exact totals are counted every time.
func TestMemoRemembersEstimatesOnly(t *testing.T) {
	t.Parallel()
	app, owner := db(t)
	fill(t, app, "tenant-a", 3000)
	fill(t, app, "tenant-b", 50)
	analyze(t, owner)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	m := &listtotal.Memo{Now: func() time.Time { return now }}

	first := memoCount(t, app, m, "tenant-a", "")
	if !first.Estimated {
		t.Fatalf("total = %+v, want an estimate", first)
	}
	// The tenant's rows go: within MemoTTL the remembered estimate answers
	// (nothing was counted), after it the count does.
	err := tenancy.Do(context.Background(), app, "tenant-a", func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), `DELETE FROM entries WHERE id > 20`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := memoCount(t, app, m, "tenant-a", ""); got != first {
		t.Errorf("within the TTL total = %+v, want the remembered %+v", got, first)
	}
	if got := memoCount(t, app, m, "tenant-a", "pending"); got.Estimated {
		t.Errorf("another filter's total = %+v, want it counted (exact)", got)
	}
	if got := memoCount(t, app, m, "tenant-b", ""); got != (listtotal.Total{N: 50}) {
		t.Errorf("another tenant's total = %+v, want its exact 50", got)
	}
	now = now.Add(listtotal.MemoTTL)
	if got := memoCount(t, app, m, "tenant-a", ""); got.Estimated || got.N > 20 {
		t.Errorf("after the TTL total = %+v, want the exact count of what is left", got)
	}

	// Exact totals are not remembered: a row more counts at once.
	fill(t, app, "tenant-b", 1)
	if got := memoCount(t, app, m, "tenant-b", ""); got != (listtotal.Total{N: 51}) {
		t.Errorf("after an insert total = %+v, want 51", got)
	}
}
