package store

import (
	"context"
	"math"

	"github.com/paylane/paylane/libs/listtotal"
)

// tenantShareCond narrows a list's count statement (contactsListSQL, which
// ends in its WHERE conditions) to the session's tenant once more, by the
// expression that the statistics object contacts_tenant_share describes
// (migration 00009): the planner estimates it by the tenant's share of the
// table. The tenant is the one the policies read, app.tenant_id: without
// it the condition matches nothing, and the estimate is one row.
const tenantShareCond = ` AND (c.tenant_id || '') = current_setting('app.tenant_id', true)`

// assumedTenantShare is the share of the table the planner takes the
// list's own tenant condition for: Postgres's default selectivity of an
// equality on a column without statistics (DEFAULT_EQ_SEL), which tenant_id
// is (migration 00006). The list's tenant_id = $1 and the policy's
// condition are one equality to the planner, counted once.
const assumedTenantShare = 0.005

// estimateContacts is the listtotal.Estimator of the contacts lists: the
// planner's estimate of the list's rows with tenantShareCond added, which
// is the table's rows × 0.5 % (the tenant condition) × the tenant's share
// (the statistics) × the filters' selectivity, divided by the 0.5 %. Its
// cost is planning one statement, as listtotal.Estimate's. Nothing else
// the service runs filters on the expression, so no plan of a list or
// lookup changes. The statistics are as fresh as the table's last ANALYZE.
func estimateContacts(ctx context.Context, q listtotal.Querier, rows string, args ...any) (int, error) {
	n, err := listtotal.Estimate(ctx, q, rows+tenantShareCond, args...)
	if err != nil {
		return 0, err
	}
	return int(math.Round(float64(n) / assumedTenantShare)), nil
}
