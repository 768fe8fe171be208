package tenancy_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/tenancy"
)

const insertItem = "INSERT INTO items (tenant_id, name) VALUES ($1, $2)"

func TestPipelinedSendsDeferredStatementsInOrderAndCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	var seen []string
	committed := 0
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if err := tenancy.Defer(ctx, tx, insertItem, "tenant-a", "a1"); err != nil {
			return err
		}
		if !tenancy.OnCommit(tx, func() { committed++ }) {
			t.Error("OnCommit refused a Pipelined transaction")
		}
		var err error
		if seen, err = names(ctx, tx); err != nil { // a1 travels before the query
			return err
		}
		if committed != 0 {
			t.Error("OnCommit ran before the commit")
		}
		return tenancy.Defer(ctx, tx, insertItem, "tenant-a", "a2") // travels with COMMIT
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1"}, seen); diff != "" {
		t.Errorf("the transaction saw (-want +got):\n%s", diff)
	}
	if committed != 1 {
		t.Errorf("OnCommit ran %d times, want 1", committed)
	}
	got, err := readNames(ctx, pool, "tenant-a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1", "a2"}, got); diff != "" {
		t.Errorf("committed rows (-want +got):\n%s", diff)
	}
	if got, _ := readNames(ctx, pool, "tenant-b"); len(got) != 0 {
		t.Errorf("tenant-b sees %v", got)
	}
}

func TestPipelinedDeferredFailureFailsTheCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	committed := false
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertItem, "tenant-a", "a1"); err != nil {
			return err
		}
		tenancy.OnCommit(tx, func() { committed = true })
		// Row-level security refuses it, but only when it is sent: with COMMIT.
		return tenancy.Defer(ctx, tx, insertItem, "tenant-b", "smuggled")
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("err = %v; want the deferred insert's row-level security violation", err)
	}
	if committed {
		t.Error("OnCommit ran for a failed commit")
	}
	// The single connection is clean again and a1 was rolled back.
	if got, err := readNames(ctx, pool, "tenant-a"); err != nil || len(got) != 0 {
		t.Fatalf("after the failed commit tenant-a sees %v, %v", got, err)
	}
}

func TestPipelinedRollsBackOnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	boom := errors.New("boom")
	committed := false
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertItem, "tenant-a", "lost"); err != nil {
			return err
		}
		if err := tenancy.Defer(ctx, tx, insertItem, "tenant-a", "never-sent"); err != nil {
			return err
		}
		tenancy.OnCommit(tx, func() { committed = true })
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if committed {
		t.Error("OnCommit ran for a rolled back transaction")
	}
	if got, err := readNames(ctx, pool, "tenant-a"); err != nil || len(got) != 0 {
		t.Fatalf("after rollback tenant-a sees %v, %v", got, err)
	}
}

func TestPipelinedSavepoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	var hooks []string
	hook := func(name string) func() { return func() { hooks = append(hooks, name) } }
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if err := tenancy.Defer(ctx, tx, insertItem, "tenant-a", "kept-1"); err != nil {
			return err
		}
		tenancy.OnCommit(tx, hook("outer"))

		// A savepoint rolled back before anything of it was sent.
		unsent, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := tenancy.Defer(ctx, unsent, insertItem, "tenant-a", "dropped-1"); err != nil {
			return err
		}
		tenancy.OnCommit(unsent, hook("unsent"))
		if err := unsent.Rollback(ctx); err != nil {
			return err
		}

		// A savepoint whose statement failed on the server: rolling back
		// to it recovers the transaction.
		failed, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := failed.Exec(ctx, insertItem, "tenant-a", "dropped-2"); err != nil {
			return err
		}
		if _, err := failed.Exec(ctx, insertItem, "tenant-b", "smuggled"); err == nil {
			t.Error("insert for another tenant succeeded")
		}
		if err := tenancy.Defer(ctx, failed, insertItem, "tenant-a", "dropped-3"); err != nil {
			return err
		}
		tenancy.OnCommit(failed, hook("failed"))
		if err := failed.Rollback(ctx); err != nil {
			return err
		}

		// A savepoint released.
		released, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := tenancy.Defer(ctx, released, insertItem, "tenant-a", "kept-2"); err != nil {
			return err
		}
		tenancy.OnCommit(released, hook("released"))
		if err := released.Commit(ctx); err != nil {
			return err
		}
		if err := released.Rollback(ctx); !errors.Is(err, pgx.ErrTxClosed) {
			t.Errorf("Rollback after Commit = %v, want ErrTxClosed", err)
		}
		return tenancy.Defer(ctx, tx, insertItem, "tenant-a", "kept-3")
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readNames(ctx, pool, "tenant-a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kept-1", "kept-2", "kept-3"}, got); diff != "" {
		t.Errorf("committed rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"outer", "released"}, hooks); diff != "" {
		t.Errorf("OnCommit hooks run (-want +got):\n%s", diff)
	}
}

// A savepoint released before anything of it was sent costs the server no
// subtransaction: its rows are written by the transaction itself, unlike
// those of a savepoint whose SAVEPOINT went out; and a statement of it that
// fails still fails the commit.
func TestPipelinedUnsentSavepointIsElided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	var elidedInSub, sentInSub bool
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		unsent, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := tenancy.Defer(ctx, unsent, insertItem, "tenant-a", "elided"); err != nil {
			return err
		}
		if err := unsent.Commit(ctx); err != nil {
			return err
		}
		sent, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := sent.Exec(ctx, insertItem, "tenant-a", "sent"); err != nil {
			return err
		}
		if err := sent.Commit(ctx); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT
			bool_or(xmin <> pg_current_xact_id()::xid) FILTER (WHERE name = 'elided'),
			bool_or(xmin <> pg_current_xact_id()::xid) FILTER (WHERE name = 'sent')
			FROM items`).Scan(&elidedInSub, &sentInSub)
	})
	if err != nil {
		t.Fatal(err)
	}
	if elidedInSub || !sentInSub {
		t.Errorf("written in a subtransaction: unsent savepoint's row %v (want false), sent savepoint's row %v (want true)",
			elidedInSub, sentInSub)
	}
	if got, err := readNames(ctx, pool, "tenant-a"); err != nil || !slices.Equal(got, []string{"elided", "sent"}) {
		t.Errorf("committed rows = %v (%v), want [elided sent]", got, err)
	}

	err = tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := tenancy.Defer(ctx, sp, insertItem, "tenant-b", "smuggled"); err != nil {
			return err
		}
		if err := sp.Commit(ctx); err != nil {
			return err
		}
		return tenancy.Defer(ctx, tx, insertItem, "tenant-a", "after")
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("commit after a failing statement of an elided savepoint = %v, want 42501", err)
	}
	if got, _ := readNames(ctx, pool, "tenant-a"); !slices.Equal(got, []string{"elided", "sent"}) {
		t.Errorf("rows after the failed transaction = %v, want [elided sent]", got)
	}
}

func TestPipelinedWithoutStatementsSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	committed := false
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		tenancy.OnCommit(tx, func() { committed = true })
		return nil
	})
	if err != nil || !committed {
		t.Fatalf("err = %v, committed = %v", err, committed)
	}
	if err := tenancy.Pipelined(ctx, pool, "", func(pgx.Tx) error { return nil }); !errors.Is(err, tenancy.ErrTenantID) {
		t.Fatalf("empty tenant id: err = %v, want ErrTenantID", err)
	}
}

func TestDeferAndOnCommitOutsidePipelined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t)
	err := tenancy.Do(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if tenancy.OnCommit(tx, func() {}) {
			t.Error("OnCommit accepted a transaction of Do")
		}
		if err := tenancy.Defer(ctx, tx, insertItem, "tenant-a", "a1"); err != nil {
			return err
		}
		got, err := names(ctx, tx)
		if err == nil && !cmp.Equal(got, []string{"a1"}) {
			t.Errorf("Defer in Do did not run at once: %v", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSetLocalLastsForTheTransactionOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := onePool(t) // one connection: the next transaction reuses the session
	setting := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) string {
		var v string
		if err := q.QueryRow(ctx, "SELECT current_setting('lock_timeout')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var first, afterSend, inSavepoint, afterRollback string
	err := tenancy.Pipelined(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if err := tenancy.SetLocal(ctx, tx, "lock_timeout", "4321ms"); err != nil {
			return err
		}
		first = setting(tx)
		if err := tenancy.SetLocal(ctx, tx, "lock_timeout", "1234ms"); err != nil {
			return err
		}
		afterSend = setting(tx)
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if err := tenancy.SetLocal(ctx, sp, "lock_timeout", "77ms"); err != nil {
			return err
		}
		inSavepoint = setting(sp)
		if err := sp.Rollback(ctx); err != nil {
			return err
		}
		afterRollback = setting(tx)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{first, afterSend, inSavepoint, afterRollback}
	if diff := cmp.Diff([]string{"4321ms", "1234ms", "77ms", "1234ms"}, got); diff != "" {
		t.Errorf("lock_timeout seen (-want +got):\n%s", diff)
	}
	if v := setting(pool); v != "0" {
		t.Errorf("lock_timeout after the commit = %q, want the session's 0", v)
	}
	var inDo string
	err = tenancy.Do(ctx, pool, "tenant-a", func(tx pgx.Tx) error {
		if err := tenancy.SetLocal(ctx, tx, "lock_timeout", "55ms"); err != nil {
			return err
		}
		inDo = setting(tx)
		return nil
	})
	if err != nil || inDo != "55ms" {
		t.Errorf("SetLocal in Do: %q, %v; want 55ms", inDo, err)
	}
}
