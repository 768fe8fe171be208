package listtotal

import (
	"slices"
	"strconv"
	"strings"
)

// Window is how a store reads one page of a list in a fixed order (newest
// first, most often): Limit rows after skipping Offset, in the list's
// order, or, when Reverse, in the opposite order (OrderBy flips every key
// of the list's ORDER BY, and the rows found go back in the list's order:
// Page).
type Window struct {
	Limit, Offset int
	Reverse       bool
}

// Window returns how to read the page of limit rows after offset of a
// list of t rows (newest first, say). A page nearer the oldest end of an exactly
// counted list is read from that end, skipping the rows older than the
// page instead of the newer ones: the last page of 10,000 rows skips none
// where reading from the newest end skips 9,900 index entries. The rows
// are the same either way. The first page, and every page of an estimated
// total (which cannot say where the list ends), is read from the newest
// end.
func (t Total) Window(limit, offset int) Window {
	older := t.N - offset - limit // rows older than the page
	if t.Estimated || offset == 0 || offset >= t.N || older >= offset {
		return Window{Limit: limit, Offset: offset}
	}
	if older < 0 { // a last page that is not full
		return Window{Limit: limit + older, Reverse: true}
	}
	return Window{Limit: limit, Offset: older, Reverse: true}
}

// OrderBy is the ORDER BY by which a store reads the window of a list
// whose own ORDER BY is keys ("created_at DESC, id DESC"): keys, or, when
// Reverse, every key flipped ("created_at ASC, id ASC"; a key without a
// direction is ascending and flips to DESC).
func (w Window) OrderBy(keys string) string {
	if !w.Reverse {
		return keys
	}
	flipped := strings.Split(keys, ",")
	for i, k := range flipped {
		k = strings.TrimSpace(k)
		switch {
		case strings.HasSuffix(k, " DESC"):
			k = strings.TrimSuffix(k, " DESC") + " ASC"
		case strings.HasSuffix(k, " ASC"):
			k = strings.TrimSuffix(k, " ASC") + " DESC"
		default:
			k += " DESC"
		}
		flipped[i] = k
	}
	return strings.Join(flipped, ", ")
}

// Page is the statement that reads the window of the list that sel
// selects (SELECT columns FROM ... WHERE ..., without ORDER BY), whose
// ORDER BY is keys: ordered by w.OrderBy(keys), LIMIT parameter limit and
// OFFSET parameter limit+1 (their values are Args'), and, when Reverse,
// put back in the list's order by an outer SELECT, so keys name columns
// of sel's select list.
func (w Window) Page(sel, keys string, limit int) string {
	page := sel + " ORDER BY " + w.OrderBy(keys) + " LIMIT $" + strconv.Itoa(limit) + " OFFSET $" + strconv.Itoa(limit+1)
	if !w.Reverse {
		return page
	}
	return "SELECT * FROM (" + page + ") page ORDER BY " + keys
}

// Args are args, the parameters of a list's conditions, followed by the
// window's LIMIT and OFFSET.
func (w Window) Args(args []any) []any {
	return append(slices.Clip(args), w.Limit, w.Offset)
}
