package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/svcclient"
)

// What every list page shares: page numbers, the Previous and Next links
// that keep a list's filters, query text checks, and a peer's refusal as a
// page.

// maxPage bounds a page number in a query (a larger one is no page).
const maxPage = 100000

// pager is the Previous and Next links of a list, keeping its filters.
type pager struct {
	Page, LastPage int
	Prev, Next     string
}

// newPager links the pages of base?query around page.
func newPager(base string, query url.Values, page, lastPage int) pager {
	p := pager{Page: page, LastPage: max(lastPage, 1)}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range query {
			if len(vs) > 0 && vs[0] != "" {
				v[k] = vs
			}
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return base
		}
		return base + "?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(min(page-1, p.LastPage))
	}
	if page < lastPage {
		p.Next = link(page + 1)
	}
	return p
}

// queryText reads a query parameter a page sends on: trimmed, at most
// maxFilter characters of valid UTF-8 without control characters; ok is
// false otherwise.
func queryText(c *fiber.Ctx, name string) (string, bool) {
	v := strings.TrimSpace(c.Query(name))
	if len(v) > maxFilter*4 || utf8.RuneCountInString(v) > maxFilter || !utf8.ValidString(v) ||
		strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	return v, true
}

// pageNumber reads the page query parameter: 1 when absent; ok is false
// when it is not a page number.
func pageNumber(c *fiber.Ctx) (int, bool) {
	v := c.Query("page")
	if v == "" {
		return 1, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPage {
		return 0, false
	}
	return n, true
}

// peerError turns a peer's 403 and 404 into the dashboard's pages.
// pathID returns the :id of the page's path: a well-formed id, or the 404
// page (a malformed id is no page of the tenant's, and never reaches a
// service).
func pathID(c *fiber.Ctx) (string, error) {
	id := c.Params("id")
	if !ids.Valid(id) {
		return "", &pageError{status: http.StatusNotFound}
	}
	return id, nil
}

func peerError(err error) error {
	switch svcclient.StatusOf(err) {
	case http.StatusForbidden:
		return &pageError{status: http.StatusForbidden}
	case http.StatusNotFound:
		return &pageError{status: http.StatusNotFound}
	}
	return err
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, unicode.IsControl)
}

// validation returns the first message per field of a peer's 422, under
// the form's field names: names renames a peer's field, and a nested field
// (subscribed_events.0) counts as its top field. With no field named, the
// peer's message is the form's.
func validation(err error, names map[string]string) (map[string]string, bool) {
	var e *svcclient.Error
	if !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity {
		return nil, false
	}
	var details map[string][]string
	_ = json.Unmarshal(e.Details, &details)
	out := map[string]string{}
	for k, v := range details {
		if len(v) == 0 {
			continue
		}
		k, _, _ = strings.Cut(k, ".")
		if n, ok := names[k]; ok {
			k = n
		}
		if _, seen := out[k]; !seen {
			out[k] = v[0]
		}
	}
	if len(out) == 0 {
		out["form"] = e.Message
	}
	return out, true
}

// listTotal is a list's meta.total as a page shows it: "about N" when the
// service estimated it (more rows than it counts exactly, libs/listtotal).
type listTotal struct {
	N         int
	Estimated bool
}

func (t listTotal) String() string {
	n := strconv.Itoa(t.N)
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + "," + n[i:]
	}
	if t.Estimated {
		return "about " + n
	}
	return n
}
