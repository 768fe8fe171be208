package store_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestDeliveryPagesFromEitherEndAreTheList: an endpoint's deliveries read
// as one page are newest first, those of the same instant by id,
// descending; pages of two and of three, those past the middle of an exact
// total read from the oldest end (listtotal.Window), join to that page,
// for the whole list and for one filtered by event type.
func TestDeliveryPagesFromEitherEndAreTheList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	ep := env.Endpoint(t, tenant, "https://hooks.example.com/x", "*")
	types := []string{"contact.created", "receivable.paid"}
	for i := range 8 { // three to an instant; ids of an instant are random
		if i%3 == 0 {
			env.Clock.Advance(time.Second)
		}
		env.Event(t, tenant, types[i%2], map[string]int{"i": i})
	}
	for _, l := range []struct {
		name string
		f    store.DeliveryFilter
		n    int
	}{
		{"all", store.DeliveryFilter{}, 8},
		{"by event type", store.DeliveryFilter{EventType: "receivable.paid"}, 4},
	} {
		t.Run(l.name, func(t *testing.T) {
			type key struct {
				At time.Time
				ID string
			}
			read := func(limit, offset int) []key {
				t.Helper()
				var got []key
				err := env.Store.Read(ctx, tenant, func(tx *store.Tx) error {
					list, total, err := tx.ListDeliveries(ctx, ep.ID, l.f, limit, offset)
					if total != listtotal.Exact(l.n) {
						t.Errorf("limit %d, offset %d: total %+v, want %d exact", limit, offset, total, l.n)
					}
					for _, d := range list {
						got = append(got, key{d.CreatedAt, d.ID})
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			all := read(l.n, 0)
			newestFirst := slices.IsSortedFunc(all, func(a, b key) int {
				if c := b.At.Compare(a.At); c != 0 {
					return c
				}
				return cmp.Compare(b.ID, a.ID)
			})
			if len(all) != l.n || !newestFirst {
				t.Fatalf("one page: %v, want %d newest first, then by id descending", all, l.n)
			}
			for _, limit := range []int{2, 3} {
				var paged []key
				for offset := 0; offset < l.n; offset += limit {
					paged = append(paged, read(limit, offset)...)
				}
				if diff := gocmp.Diff(all, paged); diff != "" {
					t.Errorf("pages of %d, joined (-one page +pages):\n%s", limit, diff)
				}
			}
		})
	}
}
