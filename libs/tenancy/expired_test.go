package tenancy_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// DeleteExpired deletes every tenant's rows past the table's retention and
// nothing else; a table without the policy loses nothing.
func TestDeleteExpiredRemovesOnlyRowsPastTheirRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		err := tenancy.Do(ctx, pool, tenant, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO memos (tenant_id, body, created_at) VALUES
				($1, 'old', now() - interval '25 hours'), ($1, 'new', now() - interval '23 hours')`, tenant)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := insert(ctx, pool, "tenant-a", "kept"); err != nil {
		t.Fatal(err)
	}

	n, err := tenancy.DeleteExpired(ctx, pool, "memos")
	if err != nil || n != 2 {
		t.Fatalf("DeleteExpired(memos) = %d, %v; want 2 (one old memo per tenant)", n, err)
	}
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		var left []string
		err := tenancy.Read(ctx, pool, tenant, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, "SELECT body FROM memos ORDER BY id")
			if err != nil {
				return err
			}
			left, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"new"}, left); diff != "" {
			t.Errorf("%s's memos (-want +got):\n%s", tenant, diff)
		}
	}
	if n, err := tenancy.DeleteExpired(ctx, pool, "items"); err != nil || n != 0 {
		t.Errorf("DeleteExpired(items) = %d, %v; want 0: items has no cleanup policy", n, err)
	}
	if got, _ := readNames(ctx, pool, "tenant-a"); !cmp.Equal(got, []string{"kept"}) {
		t.Errorf("items after DeleteExpired = %v, want [kept]", got)
	}
}
