package testkit

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/tenancy"
)

// CheckExpiry runs insert (with $1 the tenant) on pool as that tenant,
// expects the cleanup of table to delete exactly one row, and compares what
// query then reads as the tenant with want; what names the rows in the
// failure.
func CheckExpiry(t testing.TB, pool *pgxpool.Pool, tenant, table, insert, query, what string, want []string) {
	t.Helper()
	ctx := context.Background()
	err := tenancy.Do(ctx, pool, tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, insert, tenant)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tenancy.DeleteExpired(ctx, pool, table); err != nil || n != 1 {
		t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
	}
	var left []string
	err = tenancy.Read(ctx, pool, tenant, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query)
		if err != nil {
			return err
		}
		left, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("%s left (-want +got):\n%s", what, diff)
	}
}
