package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// queue puts n deliveries of tenant on the queue, due at due.
func queue(t *testing.T, env *testenv.Env, tenant string, n int, due time.Time) {
	t.Helper()
	if _, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO delivery_queue (delivery_id, tenant_id, due_at)
		SELECT $1 || '-' || i, $1, $2 FROM generate_series(1, $3) i`, tenant, due, n); err != nil {
		t.Fatal(err)
	}
}

// TestClaimDueSharesAmongTenants: a tenant's burst queued first does not
// hold back another tenant's delivery queued after it: a claim serves every
// tenant with one due, and what a tenant leaves of its share goes to the
// others, so the claim is still full.
func TestClaimDueSharesAmongTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	now := env.Clock.Now()
	queue(t, env, "burst", 500, now.Add(-time.Minute))
	queue(t, env, "quiet", 1, now)
	queue(t, env, "later", 5, now.Add(time.Hour)) // not due: never claimed

	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, c := range claims {
		per[c.TenantID]++
	}
	if len(claims) != 10 || per["quiet"] != 1 || per["burst"] != 9 {
		t.Errorf("claimed %v, want quiet's one delivery and 9 of the burst", per)
	}
}

// TestClaimDueServesEveryTenantInTurn: with more tenants due than a claim
// takes, claims serve them one delivery each, in turn, whatever has waited
// longest, so successive claims serve all of them.
func TestClaimDueServesEveryTenantInTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	now := env.Clock.Now()
	for i := range 5 { // tenant-4 has waited longest
		queue(t, env, fmt.Sprintf("tenant-%d", i), 3, now.Add(-time.Duration(i)*time.Second))
	}
	var order []string
	for range 3 {
		claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 2, ids.New())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range claims {
			order = append(order, c.TenantID)
		}
	}
	if len(order) != 6 {
		t.Fatalf("three claims of 2 served %v", order)
	}
	for i := 0; i < 6; i += 2 {
		slices.Sort(order[i : i+2])
	}
	want := []string{"tenant-0", "tenant-1", "tenant-2", "tenant-3", "tenant-0", "tenant-4"}
	if !slices.Equal(order, want) {
		t.Errorf("three claims of 2 served %v, want %v", order, want)
	}
}
