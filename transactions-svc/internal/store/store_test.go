package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func newStore(t *testing.T) *store.Store {
	t.Helper()
	pg := testkit.PG(t)
	return store.New(pg.Pool(t, pg.Database(t, "transactions", migrations.Sets()...)))
}

func ptr[T any](v T) *T { return &v }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func newItem(d txn.Direction, created time.Time) txn.Item {
	return txn.Item{
		ID: ids.NewAt(created), TransactionID: ids.NewAt(created), Direction: d,
		ContactID: ids.New(), Recipient: txn.Recipient{FirstName: "Ada", LastName: "Lovelace", Phone: "+14155550123"},
		Amount: 1250, Currency: "USD", Status: txn.Pending, LinkTTLHours: 72, Rail: "sandbox",
		Link:         txn.Link{ExpiresAt: ptr(created.Add(72 * time.Hour))},
		CustomFields: map[string]json.RawMessage{"tier": json.RawMessage(`"gold"`)},
		DueDate:      ptr("2026-12-01"), ExternalID: ptr("INV-1"),
		CreatedAt: created, UpdatedAt: created,
	}
}

func insert(t *testing.T, s *store.Store, tenant string, it txn.Item) {
	t.Helper()
	err := s.Write(context.Background(), idempotency.Tx{}, tenant, func(tx *store.Tx) error { return tx.InsertItem(context.Background(), it) })
	if err != nil {
		t.Fatal(err)
	}
}

func TestItemsRoundTripAndStayInTheirTenant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	for _, d := range []txn.Direction{txn.Receivable, txn.Payable} {
		it := newItem(d, ts("2026-11-22T01:21:17Z"))
		if d == txn.Payable {
			it.Destination = &txn.Destination{Type: txn.BankAccount, Last4: "6789"}
			it.Status = txn.DestinationSelected
		} else {
			it.CardBrand, it.CardLast4, it.Declines = ptr("visa"), ptr("0002"), 2
		}
		insert(t, s, "T1", it)
		it.TenantID = "T1"
		var got txn.Item
		err := s.Read(ctx, "T1", func(tx *store.Tx) error {
			var err error
			got, err = tx.Item(ctx, d, it.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(it, got, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", d, diff)
		}
		err = s.Read(ctx, "T2", func(tx *store.Tx) error {
			_, err := tx.Item(ctx, d, it.ID)
			return err
		})
		if !errors.Is(err, txn.ErrNotFound) {
			t.Errorf("another tenant read %s: %v, want ErrNotFound", d, err)
		}
		tenant, dir, err := s.Route(ctx, it.ID)
		if err != nil || tenant != "T1" || dir != d {
			t.Errorf("Route = %s %s %v", tenant, dir, err)
		}
	}
}

func TestListItemsFiltersAndOrders(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	base := ts("2026-11-22T00:00:00Z")
	var made []txn.Item
	for i := range 5 {
		it := newItem(txn.Receivable, base.Add(time.Duration(i)*time.Hour))
		if i%2 == 1 {
			it.Status = txn.Cancelled
			it.ExternalID = ptr("INV-odd")
		}
		insert(t, s, "T1", it)
		made = append(made, it)
	}
	insert(t, s, "T2", newItem(txn.Receivable, base))
	tests := []struct {
		name string
		f    store.Filter
		want []int
	}{
		{"all newest first", store.Filter{}, []int{4, 3, 2, 1, 0}},
		{"status", store.Filter{Status: "cancelled"}, []int{3, 1}},
		{"external id", store.Filter{ExternalID: "INV-odd"}, []int{3, 1}},
		{"contact", store.Filter{ContactID: made[2].ContactID}, []int{2}},
		{"created since", store.Filter{CreatedSince: ptr(base.Add(3 * time.Hour))}, []int{4, 3}},
	}
	// capped counts exactly up to 1 row: a total of more is an estimate
	// of at least 2, and the page is the same.
	capped := store.New(s.Pool())
	capped.ListCap = 1
	for _, tt := range tests {
		for _, st := range []*store.Store{s, capped} {
			t.Run(fmt.Sprintf("%s, cap %d", tt.name, st.ListCap), func(t *testing.T) {
				var got []txn.Item
				var total listtotal.Total
				err := st.Read(ctx, "T1", func(tx *store.Tx) error {
					var err error
					got, total, err = tx.ListItems(ctx, txn.Receivable, tt.f, 10, 0)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, it := range got {
					ids = append(ids, it.ID)
				}
				var want []string
				for _, i := range tt.want {
					want = append(want, made[i].ID)
				}
				estimated := st == capped && len(want) > 1
				if diff := cmp.Diff(want, ids); diff != "" || total.Estimated != estimated ||
					(!estimated && total.N != len(want)) || (estimated && total.N < 2) {
					t.Errorf("ids (-want +got):\n%s total %+v", diff, total)
				}
				// Pages of two, those past the middle of an exact total
				// read from the oldest end (listtotal.Window), join to
				// the same list.
				var paged []string
				for offset := 0; offset < len(want); offset += 2 {
					err := st.Read(ctx, "T1", func(tx *store.Tx) error {
						page, _, err := tx.ListItems(ctx, txn.Receivable, tt.f, 2, offset)
						for _, it := range page {
							paged = append(paged, it.ID)
						}
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(want, paged); diff != "" {
					t.Errorf("pages of 2 (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestClaimSharesDueWorkAcrossClaimers(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	now := ts("2026-11-22T00:00:00Z")
	for i := range 20 {
		it := newItem(txn.Receivable, now)
		insert(t, s, []string{"T1", "T2"}[i%2], it)
		err := s.Write(ctx, idempotency.Tx{}, []string{"T1", "T2"}[i%2], func(tx *store.Tx) error {
			return tx.Schedule(ctx, it, store.KindSend, now.Add(-time.Minute))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			claimed, err := s.Claim(ctx, now, time.Minute, 7)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range claimed {
				seen[d.ItemID]++
			}
		})
	}
	wg.Wait()
	if len(seen) != 20 {
		t.Fatalf("claimed %d distinct rows, want 20", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("row %s claimed %d times", id, n)
		}
	}
	// Leased: nothing is due again until the lease passes.
	if again, _ := s.Claim(ctx, now, time.Minute, 50); len(again) != 0 {
		t.Fatalf("claimed %d rows during their lease", len(again))
	}
	again, err := s.Claim(ctx, now.Add(2*time.Minute), time.Minute, 50)
	if err != nil || len(again) != 20 || again[0].Attempts != 2 {
		t.Fatalf("after the lease: %d rows (attempts %v), %v", len(again), again, err)
	}
	for _, d := range again {
		if err := s.Done(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := s.Claim(ctx, now.Add(time.Hour), time.Minute, 50); len(left) != 0 {
		t.Fatalf("%d rows left after Done", len(left))
	}
}

func TestDefinitionKeysAreUniquePerTenant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	now := ts("2026-11-22T00:00:00Z")
	def := fielddef.Definition{Key: "tier", Label: "Tier", Type: fielddef.String, CreatedAt: now, UpdatedAt: now}
	for i, tenant := range []string{"T1", "T2", "T1"} {
		def.ID = ids.New()
		err := s.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error { return tx.InsertDefinition(ctx, def) })
		if wantTaken := i == 2; errors.Is(err, fielddef.ErrKeyTaken) != wantTaken {
			t.Fatalf("insert %d in %s: %v", i, tenant, err)
		}
	}
}
