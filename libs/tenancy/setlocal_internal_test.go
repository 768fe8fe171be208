package tenancy

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SetLocal before the first send adds to the scope's statement instead of
// queueing one; later, or in a savepoint, it is a statement of its own.
func TestSetLocalTravelsInTheScopeStatementUntilTheFirstSend(t *testing.T) {
	ctx := context.Background()
	tx := &pipeTx{p: newPipeline(nil, "tenant-a")}
	if err := SetLocal(ctx, tx, "lock_timeout", "5000ms"); err != nil {
		t.Fatal(err)
	}
	if err := SetLocal(ctx, tx, "statement_timeout", "9s"); err != nil {
		t.Fatal(err)
	}
	var sqls []string
	for _, qq := range tx.p.pending {
		sqls = append(sqls, qq.SQL)
	}
	want := []string{"BEGIN", "SELECT set_config('app.tenant_id', $1, true), " +
		"set_config($2, $3, true), set_config($4, $5, true)"}
	if diff := cmp.Diff(want, sqls); diff != "" {
		t.Errorf("queued (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"tenant-a", "lock_timeout", "5000ms", "statement_timeout", "9s"}, tx.p.scope.Arguments); diff != "" {
		t.Errorf("scope arguments (-want +got):\n%s", diff)
	}

	sp, err := tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetLocal(ctx, sp, "lock_timeout", "1ms"); err != nil {
		t.Fatal(err)
	}
	if got := tx.p.pending[len(tx.p.pending)-1].SQL; got != "SELECT set_config($1, $2, true)" {
		t.Errorf("in a savepoint SetLocal queued %q, want a statement of its own", got)
	}

	sent := &pipeTx{p: newPipeline(nil, "tenant-a")}
	sent.p.pending, sent.p.flushes = nil, 1 // as after a send
	if err := SetLocal(ctx, sent, "lock_timeout", "5000ms"); err != nil {
		t.Fatal(err)
	}
	if len(sent.p.pending) != 1 || sent.p.pending[0].SQL != "SELECT set_config($1, $2, true)" {
		t.Errorf("after a send SetLocal queued %v, want one set_config statement", sent.p.pending)
	}
}
