package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

// tenantC has no contacts.
const tenantC = "01HZX3K5Q8V9W2Y4Z6A7B8C9DC"

// trashFifth soft-deletes every fifth contact of tenant (external ids
// ending in 0 or 5).
func trashFifth(t *testing.T, pool *pgxpool.Pool, tenant string) {
	t.Helper()
	err := tenancy.Do(context.Background(), pool, tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), `UPDATE contacts SET deleted_at = now() WHERE external_id ~ '[05]$'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listTotal is the total of tenant's list by filter f in s.
func listTotal(t *testing.T, s *store.Store, tenant string, f store.Filter) listtotal.Total {
	t.Helper()
	var total listtotal.Total
	err := s.Read(context.Background(), tenant, func(tx *store.Tx) error {
		var err error
		_, total, err = tx.Contacts(context.Background(), f, 25, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// estimate is the store's estimate of the list by filter f, in a
// transaction scoped to scope ("": no scope at all) whose statement names
// tenant as its $1.
func estimate(t *testing.T, pool *pgxpool.Pool, scope, tenant string, f store.Filter) int {
	t.Helper()
	ctx := context.Background()
	rows, _, args := store.ContactsListSQL(f)
	args[0] = tenant
	var n int
	run := func(tx pgx.Tx) error {
		var err error
		n, err = store.EstimateContacts(ctx, tx, rows, args...)
		return err
	}
	var err error
	if scope == "" {
		err = pgx.BeginFunc(ctx, pool, run)
	} else {
		err = tenancy.Read(ctx, pool, scope, run)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// within reports whether got is within 25 % of want.
func within(got, want int) bool { return got >= want*3/4 && got <= want*5/4 }

// TestLargeTenantTotalTracksItsShare: above the cap a tenant's total is an
// estimate of its own rows (within 25 %), whether another tenant holds
// most of the table or little of it, and a filtered list's estimate is
// lower; below the cap a tenant's total stays exact. The planner takes
// every tenant for 0.5 % of the table (migration 00006), which made the
// total the floor, cap+1, for any tenant whose rows were more than 0.5 %
// of the table. The estimate reads the tenant from the session's scope
// only: without one, or for a tenant without contacts, it is about
// nothing, whatever tenant the statement names; and the list's own
// estimate of a tenant, which plans go by, is still 0.5 % of the table.
func TestLargeTenantTotalTracksItsShare(t *testing.T) {
	t.Parallel()
	const large = 6000
	for _, tc := range []struct {
		name  string
		other int // tenantB's contacts
	}{
		{"another tenant holds most of the table", 3 * large},
		{"another tenant holds little of the table", large / 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pg := testkit.PG(t)
			dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
			pool := pg.Pool(t, dsn)
			s := store.New(pool, nil)
			s.ListCap = 1000
			fillTenant(t, pool, tenantA, 1, large)
			fillTenant(t, pool, tenantB, 1, tc.other)
			trashFifth(t, pool, tenantA)
			trashFifth(t, pool, tenantB)
			// ANALYZE reads every row of a table this small: the
			// tenants' shares are exact.
			if _, err := pg.Pool(t, pg.OwnerDSN(t, dsn)).Exec(context.Background(), "VACUUM ANALYZE contacts, phones"); err != nil {
				t.Fatal(err)
			}

			live := listTotal(t, s, tenantA, store.Filter{})
			all := listTotal(t, s, tenantA, store.Filter{WithTrashed: true})
			if !live.Estimated || !within(live.N, large*4/5) {
				t.Errorf("live contacts: total = %+v, want an estimate within 25 %% of %d", live, large*4/5)
			}
			if !all.Estimated || !within(all.N, large) {
				t.Errorf("with trashed: total = %+v, want an estimate within 25 %% of %d", all, large)
			}
			if live.N >= all.N {
				t.Errorf("live contacts' estimate %d, want it below the estimate with trashed (%d)", live.N, all.N)
			}
			if n := estimate(t, pool, tenantA, tenantA, store.Filter{ExternalID: "crm-7"}); n >= live.N/10 {
				t.Errorf("estimate by external id = %d, want a small part of the list's %d", n, live.N)
			}

			other := listTotal(t, s, tenantB, store.Filter{})
			if tc.other*4/5 <= int(s.ListCap) {
				if other != (listtotal.Total{N: tc.other * 4 / 5}) {
					t.Errorf("small tenant's total = %+v, want its exact %d", other, tc.other*4/5)
				}
			} else if !other.Estimated || !within(other.N, tc.other*4/5) {
				t.Errorf("other large tenant's total = %+v, want an estimate within 25 %% of %d", other, tc.other*4/5)
			}

			// Scoped to a tenant without contacts, or to none, the
			// estimate is of about nothing (one row: the planner's
			// least), though the statement names tenantA.
			for _, scope := range []string{tenantC, ""} {
				if n := estimate(t, pool, scope, tenantA, store.Filter{WithTrashed: true}); n > 200 {
					t.Errorf("scope %q: estimate of tenantA's list = %d, want at most 200", scope, n)
				}
			}

			// What the plans go by: the list's tenant is 0.5 % of the
			// table to the planner, with or without the statistics.
			rows, _, args := store.ContactsListSQL(store.Filter{WithTrashed: true})
			args[0] = tenantA
			err := tenancy.Read(context.Background(), pool, tenantA, func(tx pgx.Tx) error {
				n, err := listtotal.Estimate(context.Background(), tx, rows, args...)
				if want := (large + tc.other) / 200; err == nil && (n < want-1 || n > want+1) {
					t.Errorf("planner's estimate of the tenant's rows = %d, want 0.5 %% of the table (%d)", n, want)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
