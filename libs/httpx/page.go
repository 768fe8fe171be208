package httpx

import (
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/listtotal"
)

// MaxPerPage is the largest page size; larger per_page values are capped.
const MaxPerPage = 100

// Page is a requested page of a collection: its 1-based number and size.
type Page struct {
	Number, PerPage int
}

// Offset is the number of items before the page, saturating instead of
// overflowing for absurd page numbers.
func (p Page) Offset() int {
	if p.Number <= 1 || p.PerPage <= 0 {
		return 0
	}
	if p.Number-1 > math.MaxInt/p.PerPage {
		return math.MaxInt
	}
	return (p.Number - 1) * p.PerPage
}

// ParsePage reads the page and per_page query parameters: both must be
// positive integers (else 422 naming the parameter); per_page defaults to
// defaultPerPage and is capped at MaxPerPage.
func ParsePage(c *fiber.Ctx, defaultPerPage int) (Page, error) {
	p := Page{Number: 1, PerPage: min(defaultPerPage, MaxPerPage)}
	if p.PerPage <= 0 {
		p.PerPage = MaxPerPage
	}
	if v, ok, err := QueryValue(c, "page"); err != nil || ok {
		n, err := positiveIntOr(v, err)
		if err != nil {
			return Page{}, apierr.Field("page", "The page must be a positive integer.")
		}
		p.Number = n
	}
	if v, ok, err := QueryValue(c, "per_page"); err != nil || ok {
		n, err := positiveIntOr(v, err)
		if err != nil {
			return Page{}, apierr.Field("per_page", "The per page must be a positive integer.")
		}
		p.PerPage = min(n, MaxPerPage)
	}
	return p, nil
}

// positiveIntOr is positiveInt of a parameter read with err.
func positiveIntOr(s string, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return positiveInt(s)
}

func positiveInt(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, strconv.ErrRange
	}
	return n, nil
}

// Links are the absolute URLs of a collection's neighbouring pages.
type Links struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// Meta describes where a page sits in its collection. TotalIsEstimate is
// present, and true, only when Total is an estimate (listtotal: more rows
// match than a list counts exactly).
type Meta struct {
	CurrentPage     int  `json:"current_page"`
	PerPage         int  `json:"per_page"`
	Total           int  `json:"total"`
	LastPage        int  `json:"last_page"`
	TotalIsEstimate bool `json:"total_is_estimate,omitempty"`
}

// CollectionBody is the JSON body of a collection response.
type CollectionBody struct {
	Data  any   `json:"data"`
	Links Links `json:"links"`
	Meta  Meta  `json:"meta"`
}

// Collection answers 200 with {data, links, meta}. Links are absolute: the
// scheme comes from X-Forwarded-Proto (default http), the host from
// X-Forwarded-Host (default Host), and every query parameter of the request
// is kept with page replaced (and per_page, when sent, set to the size used).
// last_page and links.last follow total, an estimate or not; when total is
// an estimate, a full page also links a next page.
func Collection(c *fiber.Ctx, items any, p Page, total listtotal.Total) error {
	return c.Status(fiber.StatusOK).JSON(NewCollection(c, items, p, total))
}

// NewCollection builds the body Collection sends, for callers that render it
// themselves (for example to store it for idempotent replay).
func NewCollection(c *fiber.Ctx, items any, p Page, total listtotal.Total) CollectionBody {
	if p.PerPage <= 0 {
		p.PerPage = MaxPerPage
	}
	if p.Number <= 0 {
		p.Number = 1
	}
	lastPage := 1
	if total.N > 0 {
		lastPage = (total.N + p.PerPage - 1) / p.PerPage
	}
	link := pageLinker(c, p.PerPage)
	body := CollectionBody{
		Data:  nonNilSlice(items),
		Links: Links{First: link(1), Last: link(lastPage)},
		Meta: Meta{CurrentPage: p.Number, PerPage: p.PerPage, Total: total.N, LastPage: lastPage,
			TotalIsEstimate: total.Estimated},
	}
	if p.Number > 1 {
		prev := link(min(p.Number-1, lastPage))
		body.Links.Prev = &prev
	}
	// An estimated total may be below the real count: a full page then
	// has a next page even at or past last_page, so following links.next
	// reaches the real end.
	if p.Number < lastPage || (total.Estimated && sliceLen(body.Data) >= p.PerPage) {
		next := link(p.Number + 1)
		body.Links.Next = &next
	}
	return body
}

// sliceLen is the length of items when it is a slice, else 0.
func sliceLen(items any) int {
	v := reflect.ValueOf(items)
	if v.Kind() != reflect.Slice {
		return 0
	}
	return v.Len()
}

// pageLinker returns a function that builds the absolute URL of a page of
// the current request.
func pageLinker(c *fiber.Ctx, perPage int) func(page int) string {
	scheme := firstValue(c.Get(fiber.HeaderXForwardedProto))
	if scheme == "" {
		scheme = "http"
	}
	host := firstValue(c.Get(fiber.HeaderXForwardedHost))
	if host == "" {
		host = string(c.Request().Host())
	}
	query, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	if query == nil {
		query = url.Values{}
	}
	if query.Has("per_page") {
		query.Set("per_page", strconv.Itoa(perPage))
	}
	base := url.URL{Scheme: scheme, Host: host, Path: string(c.Request().URI().Path())}
	return func(page int) string {
		query.Set("page", strconv.Itoa(page))
		u := base
		u.RawQuery = query.Encode()
		return u.String()
	}
}

// firstValue returns the first element of a comma-separated header value
// (proxies append theirs).
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// nonNilSlice turns a nil slice into an empty one so data renders as [].
func nonNilSlice(items any) any {
	if items == nil {
		return []any{}
	}
	v := reflect.ValueOf(items)
	if v.Kind() == reflect.Slice && v.IsNil() {
		return []any{}
	}
	return items
}
