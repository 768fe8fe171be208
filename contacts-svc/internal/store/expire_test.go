package store_test

import (
	"testing"

	"github.com/paylane/paylane/libs/testkit"
)

// Bulk row records are kept 7 days (migration 00004): the service's cleanup
// deletes older ones, of every tenant, and no others.
func TestBatchRowRecordsExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	_, pool := newStore(t)
	testkit.CheckExpiry(t, pool, tenantA, "contact_batch_rows", `INSERT INTO contact_batch_rows (tenant_id, batch_id, row_index, action, created_at) VALUES
			($1, 'bat_old', 0, 'created', now() - interval '8 days'),
			($1, 'bat_recent', 0, 'created', now() - interval '6 days')`,
		"SELECT batch_id FROM contact_batch_rows ORDER BY batch_id", "records", []string{"bat_recent"})
}
