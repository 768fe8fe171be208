package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
)

func TestContactsListNewestFirstWithFilters(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	// capped is the same database with lists counted exactly up to 1.
	capped := store.New(pool, nil)
	capped.ListCap = 1
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	var all []string
	for i, phone := range []string{"+14155552671", "+14155552672", "+14155552673"} {
		c := mustInsert(t, s, tenantA, newContact(phone, ptr("crm-"+phone[len(phone)-1:]), "Ada", base.Add(time.Duration(i)*time.Minute)))
		all = append([]string{c.ID}, all...) // newest first
	}
	trashed := all[0]
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		c, err := tx.Contact(ctx, trashed, store.Lookup{ForUpdate: true})
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		c.DeletedAt = &now
		return tx.SaveContact(ctx, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		filter        store.Filter
		limit, offset int
		want          []string
		wantTotal     int
		cap           bool // listed by capped
	}{
		{"live only", store.Filter{}, 25, 0, all[1:], 2, false},
		{"with trashed", store.Filter{WithTrashed: true}, 25, 0, all, 3, false},
		{"second page", store.Filter{WithTrashed: true}, 2, 2, all[2:], 3, false},
		{"past the end", store.Filter{WithTrashed: true}, 2, 4, nil, 3, false},
		{"by phone", store.Filter{Phone: "+14155552672"}, 25, 0, all[1:2], 1, false},
		{"by external id", store.Filter{ExternalID: "crm-1"}, 25, 0, all[2:], 1, false},
		{"trashed by phone, live only", store.Filter{Phone: "+14155552673"}, 25, 0, nil, 0, false},
		{"trashed by phone, with trashed", store.Filter{Phone: "+14155552673", WithTrashed: true}, 25, 0, all[:1], 1, false},
		// Above the cap the total is an estimate, at least cap+1 = 2, and
		// a page is read even where it starts at or past that estimate.
		{"above the cap", store.Filter{WithTrashed: true}, 1, 2, all[2:], 2, true},
		{"at the cap", store.Filter{ExternalID: "crm-1"}, 25, 0, all[2:], 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			var total listtotal.Total
			st := s
			if tt.cap {
				st = capped
			}
			err := st.Read(ctx, tenantA, func(tx *store.Tx) error {
				list, n, err := tx.Contacts(ctx, tt.filter, tt.limit, tt.offset)
				for _, c := range list {
					got = append(got, c.ID)
				}
				total = n
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			// Above the cap: an estimate, of at least cap+1 (wantTotal).
			estimated := tt.cap && tt.wantTotal > int(capped.ListCap)
			if diff := cmp.Diff(tt.want, got); diff != "" || total.Estimated != estimated ||
				(!estimated && total.N != tt.wantTotal) || (estimated && total.N < tt.wantTotal) {
				t.Errorf("ids (-want +got):\n%s total = %+v, want %d (estimated: %v)", diff, total, tt.wantTotal, estimated)
			}
		})
	}
}

// TestContactsPagesFromEitherEndAreTheList: the pages of an exactly
// counted list, those past its middle read from the oldest end
// (listtotal.Window), are the list newest first, with contacts created in
// the same instant ordered by id as on the first page.
func TestContactsPagesFromEitherEndAreTheList(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	const n = 23
	var all []string   // newest first, then by id, descending
	for i := range n { // three at a time in the same instant
		c := mustInsert(t, s, tenantA, newContact(fmt.Sprintf("+1415555%04d", i), nil, "Ada", base.Add(time.Duration(i/3)*time.Second)))
		all = append(all, fmt.Sprintf("%02d %s", i/3, c.ID))
	}
	slices.Sort(all)
	slices.Reverse(all)
	for i, k := range all {
		all[i] = strings.Fields(k)[1]
	}
	var first []string
	if err := s.Read(ctx, tenantA, func(tx *store.Tx) error {
		list, _, err := tx.Contacts(ctx, store.Filter{}, n, 0)
		for _, c := range list {
			first = append(first, c.ID)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, first); diff != "" {
		t.Fatalf("one page of %d (-want +got):\n%s", n, diff)
	}
	for _, limit := range []int{1, 4, 5, 22} {
		var paged []string
		for offset := 0; offset < n; offset += limit {
			if err := s.Read(ctx, tenantA, func(tx *store.Tx) error {
				list, total, err := tx.Contacts(ctx, store.Filter{}, limit, offset)
				if total != listtotal.Exact(n) {
					t.Errorf("limit %d, offset %d: total %+v", limit, offset, total)
				}
				for _, c := range list {
					paged = append(paged, c.ID)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(first, paged); diff != "" {
			t.Errorf("pages of %d, joined (-one page +pages):\n%s", limit, diff)
		}
	}
}

func TestSearchByTrigramSimilarity(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	people := []struct{ first, last, phone string }{
		{"Ada", "Lovelace", "+14155552671"},
		{"Adam", "Smith", "+14155552672"},
		{"Grace", "Hopper", "+14155552673"},
	}
	byName := map[string]string{}
	for _, p := range people {
		c := newContact(p.phone, nil, p.first, time.Now())
		c.LastName = ptr(p.last)
		byName[p.first] = mustInsert(t, s, tenantA, c).ID
	}
	mustInsert(t, s, tenantB, newContact("+14155552674", nil, "Ada", time.Now())) // another tenant's Ada Lovelace
	tests := []struct {
		name   string
		search store.Search
		want   []string
	}{
		{"exact full name first", store.Search{Name: "Ada Lovelace", Limit: 10}, []string{byName["Ada"]}},
		{"typo", store.Search{Name: "Ada Lovlace", Limit: 10}, []string{byName["Ada"]}},
		{"first name finds the full name", store.Search{Name: "grace", Limit: 10}, []string{byName["Grace"]}},
		{"phone narrows", store.Search{Name: "Ada", Phone: "+14155552672", Limit: 10}, []string{byName["Adam"]}},
		{"phone alone", store.Search{Phone: "+14155552673", Limit: 10}, []string{byName["Grace"]}},
		{"nothing similar", store.Search{Name: "Zebulon Quartz", Limit: 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []contact.Candidate
			err := s.Read(ctx, tenantA, func(tx *store.Tx) error {
				var err error
				got, err = tx.SearchContacts(ctx, tt.search)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []string
			for _, c := range got {
				gotIDs = append(gotIDs, c.Contact.ID)
				if c.Score <= 0 || c.Score > 1 {
					t.Errorf("score %v out of (0, 1]", c.Score)
				}
			}
			if len(tt.want) > 0 && (len(gotIDs) == 0 || gotIDs[0] != tt.want[0]) {
				t.Errorf("best candidate of %+v = %v, want %v first", tt.search, gotIDs, tt.want)
			}
			if len(tt.want) == 0 && len(gotIDs) != 0 {
				t.Errorf("candidates of %+v = %v, want none", tt.search, gotIDs)
			}
		})
	}
}

func TestBatchRowsRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	want := []contact.RowResult{
		{RowIndex: 0, ContactID: "01HZX3K5Q8V9W2Y4Z6A7B8C9D0", Action: contact.RowCreated},
		{RowIndex: 1, Action: contact.RowFailed, Errors: map[string][]string{"phone": {"The phone field is required."}}},
	}
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		if err := tx.LockBatch(ctx, "batch-1"); err != nil {
			return err
		}
		return tx.RecordBatchRows(ctx, "batch-1", want)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Read(ctx, tenantA, func(tx *store.Tx) error {
		got, err := tx.BatchRows(ctx, "batch-1", []int{0, 1, 2})
		if err != nil {
			return err
		}
		if diff := cmp.Diff(map[int]contact.RowResult{0: want[0], 1: want[1]}, got); diff != "" {
			t.Errorf("recorded rows (-want +got):\n%s", diff)
		}
		// Rows of the range between the asked ones are not answered.
		apart, err := tx.BatchRows(ctx, "batch-1", []int{0, 3})
		if err != nil {
			return err
		}
		if diff := cmp.Diff(map[int]contact.RowResult{0: want[0]}, apart); diff != "" {
			t.Errorf("rows 0 and 3 (-want +got):\n%s", diff)
		}
		other, err := tx.BatchRows(ctx, "batch-2", []int{0})
		if err != nil || len(other) != 0 {
			t.Errorf("another batch sees %v, %v", other, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
