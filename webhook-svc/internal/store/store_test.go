package store_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01JTENANT0000000000000000A"

// Tenant tables show nothing without a tenant scope; the queue, which holds
// only ids and times, is what the dispatcher reads across tenants.
func TestRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	env.Endpoint(t, tenant, "https://hooks.example.com/x", "*")
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	for _, table := range []string{"endpoints", "events", "deliveries"} {
		var n int
		if err := env.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows visible without a tenant scope, want 0", table, n)
		}
	}
	var sealed []byte
	err := env.DB.Owner.QueryRow(ctx, `SELECT secret FROM endpoints`).Scan(&sealed)
	if err == nil {
		t.Error("the owner role reads endpoints without a tenant scope (RLS not forced)")
	}
	err = tenancy.Read(ctx, env.DB.Owner, tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT secret FROM endpoints`).Scan(&sealed)
	})
	if err != nil || len(sealed) == 0 || bytes.Contains(sealed, []byte("whsec_")) {
		t.Errorf("stored secret %q (%v), want sealed bytes", sealed, err)
	}
	now := env.Clock.Now()
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(claims) != 1 || claims[0].TenantID != tenant {
		t.Fatalf("ClaimDue = %+v, %v; want the tenant's one delivery", claims, err)
	}
	again, err := env.Store.ClaimDue(ctx, now, now.Add(time.Minute), 10, ids.New())
	if err != nil || len(again) != 0 {
		t.Errorf("a claimed delivery was claimed again within its lease: %+v, %v", again, err)
	}
	later, err := env.Store.ClaimDue(ctx, now.Add(2*time.Minute), now.Add(3*time.Minute), 10, ids.New())
	if err != nil || len(later) != 1 {
		t.Errorf("a claim past its lease was not claimable again: %+v, %v", later, err)
	}
}
