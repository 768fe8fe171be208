package store

import "github.com/paylane/paylane/libs/listtotal"

// Statements of this package, for the plan tests.
const (
	JobsSQL       = jobsSQL
	ClaimDueSQL   = claimDueSQL
	DueTenantsSQL = dueTenantsSQL
)

// DeliveriesSQL is ListDeliveries' count and page statements, the page
// read from the newest end (order DESC) or the oldest (ASC), and their
// arguments but LIMIT and OFFSET.
func DeliveriesSQL(endpointID string, f DeliveryFilter, order string) (count, page string, args []any) {
	count, sel, args := deliveriesSQL(endpointID, f)
	return count, listtotal.Window{Reverse: order == "ASC"}.Page(sel, deliveriesOrder, len(args)+1), args
}
