package store

// Statements of this package, for the plan tests.
const (
	JobsSQL       = jobsSQL
	ClaimDueSQL   = claimDueSQL
	DueTenantsSQL = dueTenantsSQL
)
