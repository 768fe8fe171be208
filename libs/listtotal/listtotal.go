// Package listtotal counts a list's matching rows for meta.total so that the
// cost of a list does not grow with the tenant: the count is exact while the
// matching rows are at most a cap, and above the cap it is the planner's
// estimate of the same rows (or a store's Estimator), marked as an estimate
// (docs/decisions.md; docs/benchmarks.md, "Data growth").
package listtotal

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// DefaultCap is the largest total a list counts exactly.
const DefaultCap Cap = 10_000

// Cap is the largest total counted exactly; zero or less means DefaultCap.
// Services keep it in their store (a test sets a small one through the
// svcrun seam of this type) rather than in package state.
type Cap int

// Total is a list's meta.total: N rows, exact unless Estimated.
type Total struct {
	N int
	// Estimated: more than the cap rows match and N is the planner's
	// estimate of them, never less than cap+1.
	Estimated bool
}

// Exact is the exact total n, for a list whose rows are bounded and counted
// without Count.
func Exact(n int) Total { return Total{N: n} }

// Querier is the part of a pgx transaction that Count uses.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Count returns the total of the list whose rows the statement rows selects
// (SELECT 1 FROM ... WHERE ..., without ORDER BY or LIMIT; args are its
// parameters), run on q, a tenant-scoped transaction.
//
// It counts at most cap+1 rows (SELECT count(*) FROM (rows LIMIT cap+1)),
// so it never reads more than cap+1 index entries, in a plan made for the
// arguments' values (unprepared). When more match, the total is the
// planner's row estimate of rows (EXPLAIN with the same arguments, planned
// with their values), at least cap+1, and Estimated.
//
// rows needs no tenant condition of its own: the planner evaluates the
// row-level security policy's current_setting('app.tenant_id') when it
// estimates, so the estimate is of the tenant's rows wherever the table
// keeps statistics on tenant_id. A tenant parameter would do the same for
// the estimate but makes the generic plan that pgx's statement cache
// settles on plan for an average tenant.
func (c Cap) Count(ctx context.Context, q Querier, rows string, args ...any) (Total, error) {
	return c.CountWith(ctx, q, Estimate, rows, args...)
}

// Estimator returns an estimate of the number of rows that rows selects
// (args are its parameters), run on q in the tenant's scope. Estimate, the
// planner's row estimate, is the one Count uses; a store whose planner
// cannot tell one tenant's share of a table from another's (no statistics
// on the tenant column) passes its own to CountWith.
type Estimator func(ctx context.Context, q Querier, rows string, args ...any) (int, error)

// CountWith is Count with estimate in place of Estimate for a list of more
// than cap rows. The total is still at least cap+1.
func (c Cap) CountWith(ctx context.Context, q Querier, estimate Estimator, rows string, args ...any) (Total, error) {
	limit := c.limit()
	var n int
	if err := q.QueryRow(ctx, c.SQL(rows), unprepared(args)...).Scan(&n); err != nil {
		return Total{}, fmt.Errorf("counting: %w", err)
	}
	if n <= limit {
		return Total{N: n}, nil
	}
	n, err := estimate(ctx, q, rows, args...)
	if err != nil {
		return Total{}, err
	}
	return Total{N: max(n, limit+1), Estimated: true}, nil
}

// unprepared puts pgx's QueryExecModeExec before args: the statement goes
// as an unnamed statement, which Postgres plans with the arguments' values
// every time. As a named statement of pgx's cache it could run a generic
// plan, which takes a parameter's range for a third of the table: the
// capped count of a date range was then a sequential scan, which finds the
// newest rows last (transactions-svc's plan test).
func unprepared(args []any) []any {
	return append([]any{pgx.QueryExecModeExec}, args...)
}

// SQL is the statement by which Count counts rows: at most cap+1 of them.
func (c Cap) SQL(rows string) string {
	return "SELECT count(*) FROM (" + rows + " LIMIT " + strconv.Itoa(c.limit()+1) + ") capped"
}

// limit is the cap in effect.
func (c Cap) limit() int {
	if c <= 0 {
		return int(DefaultCap)
	}
	return int(c)
}

// Estimate returns the planner's estimate of the number of rows that rows
// selects: the top plan node's "Plan Rows" of EXPLAIN (FORMAT JSON). The
// arguments travel as the statement's parameters, which Postgres plans an
// EXPLAIN with as values (a custom plan), and the tenant is the policy's
// setting, which the planner reads for its estimates (see Count).
func Estimate(ctx context.Context, q Querier, rows string, args ...any) (int, error) {
	var out []byte
	if err := q.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+rows, unprepared(args)...).Scan(&out); err != nil {
		return 0, fmt.Errorf("estimating: %w", err)
	}
	var plans []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		return 0, fmt.Errorf("estimating: reading the plan: %v", err)
	}
	r := plans[0].Plan.Rows
	if r >= math.MaxInt32 {
		return math.MaxInt32, nil
	}
	return int(math.Round(r)), nil
}
