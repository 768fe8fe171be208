package inbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pg := testkit.PG(t)
	return pg.Pool(t, pg.Database(t, "inbox", inbox.Migrations()))
}

func claim(ctx context.Context, pool *pgxpool.Pool, consumer, eventID string) (bool, error) {
	var first bool
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		first, err = inbox.Claim(ctx, tx, consumer, eventID)
		return err
	})
	return first, err
}

func TestClaimIsTrueOnceThenFalse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	steps := []struct {
		consumer, event string
		want            bool
	}{
		{"webhooks", "E1", true},
		{"webhooks", "E1", false},
		{"gateway", "E1", true}, // another consumer has its own claims
		{"webhooks", "E2", true},
	}
	for _, s := range steps {
		got, err := claim(ctx, pool, s.consumer, s.event)
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want {
			t.Errorf("Claim(%s, %s) = %v, want %v", s.consumer, s.event, got, s.want)
		}
	}
}

func TestClaimRollsBackWithItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	failed := errors.New("handler failed")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if first, err := inbox.Claim(ctx, tx, "c", "E1"); err != nil || !first {
			t.Fatalf("first claim = %v, %v", first, err)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatal(err)
	}
	if first, err := claim(ctx, pool, "c", "E1"); err != nil || !first {
		t.Fatalf("claim after rollback = %v, %v; want true", first, err)
	}
}

func TestConcurrentClaimWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if first, err := inbox.Claim(ctx, tx, "c", "E1"); err != nil || !first {
		t.Fatalf("first claim = %v, %v", first, err)
	}
	second := make(chan bool, 1)
	go func() {
		first, err := claim(ctx, pool, "c", "E1")
		if err != nil {
			t.Error(err)
		}
		second <- first
	}()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if <-second {
		t.Fatal("the concurrent claim also won")
	}
}

func TestClaimKeepsTenantScopeAndPruneDeletesOld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	if err := tenancy.Do(ctx, pool, "T1", func(tx pgx.Tx) error {
		_, err := inbox.Claim(ctx, tx, "c", "scoped")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(ctx, pool, "c", "old"); err != nil {
		t.Fatal(err)
	}
	var tenant *string
	if err := pool.QueryRow(ctx, "SELECT tenant_id FROM inbox WHERE event_id = 'scoped'").Scan(&tenant); err != nil {
		t.Fatal(err)
	}
	if tenant == nil || *tenant != "T1" {
		t.Fatalf("tenant_id = %v, want T1", tenant)
	}
	if _, err := pool.Exec(ctx, "UPDATE inbox SET received_at = now() - interval '8 days' WHERE event_id = 'old'"); err != nil {
		t.Fatal(err)
	}
	n, err := inbox.Prune(ctx, pool, 7*24*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if first, err := claim(ctx, pool, "c", "scoped"); err != nil || first {
		t.Fatalf("recent claim was pruned: %v, %v", first, err)
	}
}
