package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// Bulk row records are kept 7 days (migration 00004): the service's cleanup
// deletes older ones, of every tenant, and no others.
func TestBatchRowRecordsExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newStore(t).Pool()
	err := tenancy.Do(ctx, pool, "T1", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO transaction_batch_rows (tenant_id, batch_id, row_index, direction, action, created_at) VALUES
			($1, 'bat_old', 0, 'receivable', 'created', now() - interval '8 days'),
			($1, 'bat_recent', 0, 'receivable', 'created', now() - interval '6 days')`, "T1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tenancy.DeleteExpired(ctx, pool, "transaction_batch_rows"); err != nil || n != 1 {
		t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
	}
	var left []string
	err = tenancy.Read(ctx, pool, "T1", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT batch_id FROM transaction_batch_rows ORDER BY batch_id")
		if err != nil {
			return err
		}
		left, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bat_recent"}, left); diff != "" {
		t.Errorf("records left (-want +got):\n%s", diff)
	}
}

// Notifications are kept 7 days (migration 00005), long enough for
// optin-svc to read them after being down for a while; the service's
// cleanup deletes older ones.
func TestNotificationsExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newStore(t).Pool()
	err := tenancy.Do(ctx, pool, "T1", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO notifications (tenant_id, id, item_id, direction, kind, to_phone, body, created_at) VALUES
			($1, 'n_old', 'i1', 'receivable', 'payment_link', '+14155550123', 'Pay', now() - interval '8 days'),
			($1, 'n_recent', 'i1', 'receivable', 'payment_link', '+14155550123', 'Pay', now() - interval '6 days')`, "T1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tenancy.DeleteExpired(ctx, pool, "notifications"); err != nil || n != 1 {
		t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
	}
	var left []string
	err = tenancy.Read(ctx, pool, "T1", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT id FROM notifications ORDER BY id")
		if err != nil {
			return err
		}
		left, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n_recent"}, left); diff != "" {
		t.Errorf("notifications left (-want +got):\n%s", diff)
	}
}
