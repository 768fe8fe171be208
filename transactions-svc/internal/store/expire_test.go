package store_test

import (
	"testing"

	"github.com/paylane/paylane/libs/testkit"
)

// Bulk row records are kept 7 days (migration 00004): the service's cleanup
// deletes older ones, of every tenant, and no others.
func TestBatchRowRecordsExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	checkExpiry(t, "transaction_batch_rows", `INSERT INTO transaction_batch_rows (tenant_id, batch_id, row_index, direction, action, created_at) VALUES
			($1, 'bat_old', 0, 'receivable', 'created', now() - interval '8 days'),
			($1, 'bat_recent', 0, 'receivable', 'created', now() - interval '6 days')`,
		"SELECT batch_id FROM transaction_batch_rows ORDER BY batch_id", "records", []string{"bat_recent"})
}

// Notifications are kept 7 days (migration 00005), long enough for
// optin-svc to read them after being down for a while; the service's
// cleanup deletes older ones.
func TestNotificationsExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	checkExpiry(t, "notifications", `INSERT INTO notifications (tenant_id, id, item_id, direction, kind, to_phone, body, created_at) VALUES
			($1, 'n_old', 'i1', 'receivable', 'payment_link', '+14155550123', 'Pay', now() - interval '8 days'),
			($1, 'n_recent', 'i1', 'receivable', 'payment_link', '+14155550123', 'Pay', now() - interval '6 days')`,
		"SELECT id FROM notifications ORDER BY id", "notifications", []string{"n_recent"})
}

// checkExpiry runs insert (with $1 the tenant T1) in a fresh store, expects
// the service's cleanup of table to delete exactly one row, and compares
// what query then reads with want; what names the rows in the failure.
func checkExpiry(t *testing.T, table, insert, query, what string, want []string) {
	t.Helper()
	testkit.CheckExpiry(t, newStore(t).Pool(), "T1", table, insert, query, what, want)
}
