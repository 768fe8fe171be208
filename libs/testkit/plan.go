package testkit

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PlanNode is a node of EXPLAIN (FORMAT JSON).
type PlanNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []PlanNode `json:"Plans"`
}

// Walk calls fn for n and every node under it.
func (n PlanNode) Walk(fn func(PlanNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.Walk(fn)
	}
}

// ExplainPrepared returns the plan the prepared statement sql gets in
// tenant (app.tenant_id, so row-level security applies) under
// plan_cache_mode mode ("force_generic_plan" as pgx's statement cache ends
// up with, or "force_custom_plan") for args. types, when not empty, are the
// statement's parameter types ("text, text[]"); otherwise Postgres infers
// them as it does for pgx's prepared statements.
func ExplainPrepared(t testing.TB, pool *pgxpool.Pool, tenant, mode, types, sql string, args ...any) PlanNode {
	t.Helper()
	ctx := context.Background()
	tx := tenantTx(t, pool, tenant)
	defer tx.Rollback(ctx)
	prepare := "PREPARE plan_probe AS " + sql
	if types != "" {
		prepare = "PREPARE plan_probe(" + types + ") AS " + sql
	}
	for _, q := range []string{"SET LOCAL plan_cache_mode = " + mode, prepare} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// PREPARE outlives the transaction: the connection goes back to the pool.
	defer tx.Exec(ctx, "DEALLOCATE plan_probe")
	execute := "EXPLAIN (FORMAT JSON) EXECUTE plan_probe"
	if len(args) > 0 {
		execute += "("
		for i := range args {
			if i > 0 {
				execute += ", "
			}
			execute += "$" + strconv.Itoa(i+1)
		}
		execute += ")"
	}
	var out []byte
	// The simple protocol sends the arguments as literals: EXECUTE plans
	// them as the prepared statement's own parameters.
	if err := tx.QueryRow(ctx, execute, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...).Scan(&out); err != nil {
		t.Fatalf("%s: %v", execute, err)
	}
	var plans []struct {
		Plan PlanNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("reading the plan: %v\n%s", err, out)
	}
	return plans[0].Plan
}
