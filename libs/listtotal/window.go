package listtotal

// Window is how a store reads one page of a newest-first list (or of any
// list in a fixed order, its first rows the newest): Limit rows after
// skipping Offset, in the list's order, or, when Reverse, in the opposite
// order (the store flips every key of its ORDER BY and puts the rows it
// found back in the list's order).
type Window struct {
	Limit, Offset int
	Reverse       bool
}

// Window returns how to read the page of limit rows after offset of a
// newest-first list of t rows. A page nearer the oldest end of an exactly
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

// Order is the direction of the window's ORDER BY on the list's
// newest-first keys: "DESC", or "ASC" when Reverse. A list in ascending
// order flips its keys to DESC when Reverse instead.
func (w Window) Order() string {
	if w.Reverse {
		return "ASC"
	}
	return "DESC"
}
