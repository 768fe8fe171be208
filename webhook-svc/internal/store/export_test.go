package store

// Statements of this package, for the plan tests.
const (
	JobsSQL       = jobsSQL
	ClaimDueSQL   = claimDueSQL
	DueTenantsSQL = dueTenantsSQL
)

// DeliveriesSQL is ListDeliveries' count and page statements, the page
// read in order, and their arguments but LIMIT and OFFSET.
func DeliveriesSQL(endpointID string, f DeliveryFilter, order string) (count, page string, args []any) {
	return deliveriesSQL(endpointID, f, order)
}
