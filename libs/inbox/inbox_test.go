package inbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

// PruneEvery prunes on its interval until ctx ends.
func TestPruneEveryDeletesOldClaimsOnItsInterval(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pool := newPool(t)
	if _, err := claim(ctx, pool, "c", "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE inbox SET received_at = now() - interval '8 days' WHERE event_id = 'old'"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { inbox.PruneEvery(ctx, pool, 7*24*time.Hour, 10*time.Millisecond, nil); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM inbox").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d claims left after 10 s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}

func claimAll(ctx context.Context, pool *pgxpool.Pool, tenantID, consumer string, ids ...string) ([]string, error) {
	var claimed []string
	err := tenancy.Do(ctx, pool, tenantID, func(tx pgx.Tx) error {
		var err error
		claimed, err = inbox.ClaimAll(ctx, tx, consumer, ids)
		return err
	})
	return claimed, err
}

// ClaimAll returns each id the first time only (repeats inside one call
// count once), per consumer, agreeing with Claim, and keeps the tenant scope.
func TestClaimAllReturnsFirstClaimsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	if _, err := claim(ctx, pool, "webhooks", "E2"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		consumer string
		ids      []string
		want     []string
	}{
		{"new, repeated and already claimed", "webhooks", []string{"E3", "E1", "E2", "E3"}, []string{"E1", "E3"}},
		{"redelivery of the batch", "webhooks", []string{"E3", "E1", "E2", "E3"}, nil},
		{"another consumer", "gateway", []string{"E2", "E1"}, []string{"E1", "E2"}},
		{"empty", "webhooks", nil, nil},
	}
	for _, s := range steps {
		got, err := claimAll(ctx, pool, "T1", s.consumer, s.ids...)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: ClaimAll (-want +got):\n%s", s.name, diff)
		}
	}
	if first, err := claim(ctx, pool, "webhooks", "E1"); err != nil || first {
		t.Errorf("Claim after ClaimAll = %v, %v; want false", first, err)
	}
	var tenants []string
	rows, err := pool.Query(ctx, "SELECT DISTINCT coalesce(tenant_id, '-') FROM inbox WHERE event_id IN ('E1', 'E3')")
	if err != nil {
		t.Fatal(err)
	}
	if tenants, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"T1"}, tenants); diff != "" {
		t.Errorf("tenant_id of batch claims (-want +got):\n%s", diff)
	}
}

func TestClaimAllRollsBackWithItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	failed := errors.New("handler failed")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if got, err := inbox.ClaimAll(ctx, tx, "c", []string{"E1", "E2"}); err != nil || len(got) != 2 {
			t.Fatalf("first ClaimAll = %v, %v", got, err)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatal(err)
	}
	got, err := claimAll(ctx, pool, "T1", "c", "E1", "E2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"E1", "E2"}, got); diff != "" {
		t.Errorf("ClaimAll after rollback (-want +got):\n%s", diff)
	}
}
