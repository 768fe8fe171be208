package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/migrations"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "tn_lists"

func newStore(t *testing.T) *store.Store {
	t.Helper()
	pg := testkit.PG(t)
	return store.New(pg.Pool(t, pg.Database(t, "batch_svc", migrations.Sets()...)))
}

// joinedPages reads the list as one page of n, then in pages of two and of
// three, and fails unless the pages (those past the middle of an exact
// total read from the end, listtotal.Window) join to the one page; it
// returns the one page.
func joinedPages(t *testing.T, n int, read func(limit, offset int) ([]string, listtotal.Total)) []string {
	t.Helper()
	page := func(limit, offset int) []string {
		t.Helper()
		got, total := read(limit, offset)
		if total != listtotal.Exact(n) {
			t.Errorf("limit %d, offset %d: total %+v, want %d exact", limit, offset, total, n)
		}
		return got
	}
	all := page(n, 0)
	for _, limit := range []int{2, 3} {
		var paged []string
		for offset := 0; offset < n; offset += limit {
			paged = append(paged, page(limit, offset)...)
		}
		if diff := cmp.Diff(all, paged); diff != "" {
			t.Errorf("pages of %d, joined (-one page +pages):\n%s", limit, diff)
		}
	}
	return all
}

// TestBatchPagesFromEitherEndAreTheList: the tenant's batches read as one
// page are newest first, those of the same instant by id, descending, and
// pages of two and of three join to that page, for all types and for one.
func TestBatchPagesFromEitherEndAreTheList(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	types := []batch.Type{batch.Contacts, batch.Receivables}
	var keys []string // "instant id type" of every batch
	err := st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		for i := range 9 { // three to an instant; ids do not follow i
			h := batch.Header{ID: fmt.Sprintf("b%02d", (i*5)%9), Type: types[i%2], Status: batch.Queued, TotalItems: 1,
				CreatedAt: base.Add(time.Duration(i/3) * time.Second)}
			keys = append(keys, fmt.Sprintf("%d %s %s", i/3, h.ID, h.Type))
			if err := tx.InsertBatch(ctx, h, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	for _, l := range []struct {
		name  string
		types []batch.Type
	}{
		{"all types", types},
		{"contacts", []batch.Type{batch.Contacts}},
	} {
		t.Run(l.name, func(t *testing.T) {
			var want []string
			for _, k := range keys {
				f := strings.Fields(k)
				if slices.Contains(l.types, batch.Type(f[2])) {
					want = append(want, f[1])
				}
			}
			got := joinedPages(t, len(want), func(limit, offset int) (ids []string, total listtotal.Total) {
				err := st.Read(ctx, tenant, func(tx *store.Tx) error {
					list, tt, err := tx.ListBatches(ctx, store.ListFilter{Types: l.types, Limit: limit, Offset: offset})
					for _, h := range list {
						ids = append(ids, h.ID)
					}
					total = tt
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return ids, total
			})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("one page (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRowErrorPagesFromEitherEndAreTheList: a batch's row errors read as
// one page are in row order, the messages of a row in the order recorded,
// and pages of two and of three join to that page.
func TestRowErrorPagesFromEitherEndAreTheList(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ctx := context.Background()
	now := time.Now()
	// Recorded out of row order; rows 0 and 3 have several messages.
	recorded := []batch.RowError{
		{RowIndex: 5, Field: "phone", Message: "5a"},
		{RowIndex: 3, Field: "phone", Message: "3a"},
		{RowIndex: 0, Field: "phone", Message: "0a"},
		{RowIndex: 3, Field: "name", Message: "3b"},
		{RowIndex: 9, Field: "phone", Message: "9a"},
		{RowIndex: 0, Field: "name", Message: "0b"},
		{RowIndex: 3, Field: "email", Message: "3c"},
	}
	want := []string{"0a", "0b", "3a", "3b", "3c", "5a", "9a"}
	err := st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		h := batch.Header{ID: "b1", Type: batch.Contacts, Status: batch.Processing, TotalItems: 10, CreatedAt: now}
		chunk := batch.Chunk{Items: make([]json.RawMessage, 10)}
		for i := range chunk.Items {
			chunk.Items[i] = json.RawMessage(`{}`)
		}
		if err := tx.InsertBatch(ctx, h, []batch.Chunk{chunk}); err != nil {
			return err
		}
		_, err := tx.RecordChunk(ctx, h.ID, 0, store.ChunkOutcome{Succeeded: 6, Failed: 4, Errors: recorded}, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := joinedPages(t, len(want), func(limit, offset int) (msgs []string, total listtotal.Total) {
		err := st.Read(ctx, tenant, func(tx *store.Tx) error {
			list, tt, err := tx.RowErrors(ctx, "b1", limit, offset)
			for _, e := range list {
				if e.Message[:1] != fmt.Sprint(e.RowIndex) {
					t.Errorf("row error %+v: message of another row", e)
				}
				msgs = append(msgs, e.Message)
			}
			total = tt
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return msgs, total
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one page (-want +got):\n%s", diff)
	}
}
