package listtotal_test

import (
	"slices"
	"testing"

	"github.com/paylane/paylane/libs/listtotal"
)

// TestWindowReadsTheSameRowsFromEitherEnd: for every list size, page size
// and page, the rows the window reads (in its order, then back to newest
// first) are the rows of the page read from the newest end; a window of a
// page past the list's middle but the first is read from the oldest end,
// and skips fewer rows than the page's offset, and every other page from
// the newest end.
func TestWindowReadsTheSameRowsFromEitherEnd(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 23; n++ {
		list := make([]int, n) // newest first
		for i := range list {
			list[i] = n - i
		}
		for limit := 1; limit <= 7; limit++ {
			for offset := 0; offset <= n+limit; offset += limit {
				want := list[min(offset, n):min(offset+limit, n)]
				w := listtotal.Exact(n).Window(limit, offset)
				got := read(list, w)
				if !slices.Equal(got, want) {
					t.Fatalf("n %d, limit %d, offset %d: window %+v reads %v, want %v", n, limit, offset, w, got, want)
				}
				if wantReverse := offset > 0 && offset < n && 2*offset+limit > n; w.Reverse != wantReverse || w.Reverse && w.Offset >= offset {
					t.Errorf("n %d, limit %d, offset %d: window %+v, reverse %v", n, limit, offset, w, !w.Reverse)
				}
			}
		}
	}
}

// TestWindowOfAnEstimateReadsFromTheNewestEnd: an estimated total may be
// far from the list's length, so no page of it is read from the end.
func TestWindowOfAnEstimateReadsFromTheNewestEnd(t *testing.T) {
	t.Parallel()
	est := listtotal.Total{N: 20_000, Estimated: true}
	if w := est.Window(100, 19_900); w != (listtotal.Window{Limit: 100, Offset: 19_900}) {
		t.Errorf("window of the last page of an estimate = %+v, want newest first at offset 19900", w)
	}
	if w := listtotal.Exact(20_000).Window(100, 19_900); w != (listtotal.Window{Limit: 100, Reverse: true}) {
		t.Errorf("window of the last page of an exact 20000 = %+v, want oldest first at offset 0", w)
	}
}

// read is what a store does with w: the rows of list (newest first) in w's
// order, skipped and limited, then ordered newest first.
func read(list []int, w listtotal.Window) []int {
	ordered := slices.Clone(list)
	if w.Reverse {
		slices.Reverse(ordered)
	}
	page := ordered[min(w.Offset, len(ordered)):min(w.Offset+w.Limit, len(ordered))]
	page = slices.Clone(page)
	slices.SortFunc(page, func(a, b int) int { return b - a })
	return page
}

// TestWindowOrderByFlipsEveryKey: a reversed window reads by every key of
// the list's ORDER BY flipped, with or without a direction; a forward one
// by the keys as they are.
func TestWindowOrderByFlipsEveryKey(t *testing.T) {
	t.Parallel()
	rev, fwd := listtotal.Window{Reverse: true}, listtotal.Window{}
	for keys, want := range map[string]string{
		"created_at DESC, id DESC":    "created_at ASC, id ASC",
		"c.created_at DESC,c.id DESC": "c.created_at ASC, c.id ASC",
		"row_index, seq":              "row_index DESC, seq DESC",
		"is_default DESC, id ASC":     "is_default ASC, id DESC",
	} {
		if got := rev.OrderBy(keys); got != want {
			t.Errorf("reversed OrderBy(%q) = %q, want %q", keys, got, want)
		}
		if got := fwd.OrderBy(keys); got != keys {
			t.Errorf("forward OrderBy(%q) = %q", keys, got)
		}
	}
}

// TestWindowPage: a forward page is the list's statement with its ORDER
// BY, LIMIT and OFFSET; a reversed one reads by the flipped keys and puts
// the rows back in the list's order; Args follow the conditions' with the
// window's LIMIT and OFFSET and leave the conditions' slice alone.
func TestWindowPage(t *testing.T) {
	t.Parallel()
	sel := "SELECT id, created_at FROM things WHERE kind = $1"
	if got, want := (listtotal.Window{}).Page(sel, "created_at DESC, id DESC", 2),
		sel+" ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"; got != want {
		t.Errorf("forward page = %q, want %q", got, want)
	}
	if got, want := (listtotal.Window{Reverse: true}).Page(sel, "created_at DESC, id DESC", 2),
		"SELECT * FROM ("+sel+" ORDER BY created_at ASC, id ASC LIMIT $2 OFFSET $3) page ORDER BY created_at DESC, id DESC"; got != want {
		t.Errorf("reversed page = %q, want %q", got, want)
	}
	conds := make([]any, 1, 4)
	conds[0] = "a"
	w := listtotal.Window{Limit: 25, Offset: 50}
	first, second := w.Args(conds), listtotal.Window{Limit: 10, Offset: 0}.Args(conds)
	if !slices.Equal(first, []any{"a", 25, 50}) || !slices.Equal(second, []any{"a", 10, 0}) {
		t.Errorf("Args = %v and %v, want [a 25 50] and [a 10 0]", first, second)
	}
}
