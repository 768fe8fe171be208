package httpx_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/listtotal"
)

func TestParsePage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		query     string
		want      httpx.Page
		wantField string
	}{
		{name: "defaults", query: "", want: httpx.Page{Number: 1, PerPage: 25}},
		{name: "given", query: "?page=3&per_page=10", want: httpx.Page{Number: 3, PerPage: 10}},
		{name: "capped", query: "?per_page=500", want: httpx.Page{Number: 1, PerPage: 100}},
		{name: "per_page zero", query: "?per_page=0", wantField: "per_page"},
		{name: "per_page text", query: "?per_page=abc", wantField: "per_page"},
		{name: "per_page empty", query: "?per_page=", wantField: "per_page"},
		{name: "page negative", query: "?page=-1", wantField: "page"},
		{name: "page text", query: "?page=abc", wantField: "page"},
		{name: "page fraction", query: "?page=1.5", wantField: "page"},
		{name: "page overflow", query: "?page=99999999999999999999999", wantField: "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			app.Get("/items", func(c *fiber.Ctx) error {
				p, err := httpx.ParsePage(c, 25)
				if err != nil {
					return err
				}
				return c.JSON(p)
			})
			resp, body := get(t, app, "/items"+tt.query)
			if tt.wantField == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("status = %d, want 200 (%s)", resp.StatusCode, body)
				}
				var got httpx.Page
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("page (-want +got):\n%s", diff)
				}
				return
			}
			if resp.StatusCode != 422 {
				t.Fatalf("status = %d, want 422 (%s)", resp.StatusCode, body)
			}
			env := decodeEnvelope(t, body)
			if env.Error.Code != apierr.CodeValidationFailed || len(env.Error.Details[tt.wantField]) == 0 {
				t.Errorf("error = %+v, want validation_failed naming %s", env.Error, tt.wantField)
			}
		})
	}
}

func TestPageOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		page httpx.Page
		want int
	}{
		{httpx.Page{Number: 1, PerPage: 25}, 0},
		{httpx.Page{Number: 3, PerPage: 25}, 50},
		{httpx.Page{Number: math.MaxInt, PerPage: 100}, math.MaxInt},
	}
	for _, tt := range tests {
		if got := tt.page.Offset(); got != tt.want {
			t.Errorf("%+v.Offset() = %d, want %d", tt.page, got, tt.want)
		}
	}
}

type collection struct {
	Data  []int       `json:"data"`
	Links httpx.Links `json:"links"`
	Meta  httpx.Meta  `json:"meta"`
}

func ptr(s string) *string { return &s }

func TestCollection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		target    string
		headers   map[string]string
		total     listtotal.Total
		wantLinks httpx.Links
		wantMeta  httpx.Meta
	}{
		{
			name: "first page of three, forwarded", target: "/api/v1/contacts?external_id=x%201&page=1&per_page=10", total: listtotal.Exact(25),
			headers: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.com"},
			wantLinks: httpx.Links{
				First: "https://api.example.com/api/v1/contacts?external_id=x+1&page=1&per_page=10",
				Last:  "https://api.example.com/api/v1/contacts?external_id=x+1&page=3&per_page=10",
				Next:  ptr("https://api.example.com/api/v1/contacts?external_id=x+1&page=2&per_page=10"),
			},
			wantMeta: httpx.Meta{CurrentPage: 1, PerPage: 10, Total: 25, LastPage: 3},
		},
		{
			name: "last page, host header", target: "/items?page=3&per_page=10&status=paid", total: listtotal.Exact(25),
			wantLinks: httpx.Links{
				First: "http://example.com/items?page=1&per_page=10&status=paid",
				Last:  "http://example.com/items?page=3&per_page=10&status=paid",
				Prev:  ptr("http://example.com/items?page=2&per_page=10&status=paid"),
			},
			wantMeta: httpx.Meta{CurrentPage: 3, PerPage: 10, Total: 25, LastPage: 3},
		},
		{
			name: "middle page, capped per_page rewritten", target: "/items?page=2&per_page=500", total: listtotal.Exact(250),
			wantLinks: httpx.Links{
				First: "http://example.com/items?page=1&per_page=100",
				Last:  "http://example.com/items?page=3&per_page=100",
				Prev:  ptr("http://example.com/items?page=1&per_page=100"),
				Next:  ptr("http://example.com/items?page=3&per_page=100"),
			},
			wantMeta: httpx.Meta{CurrentPage: 2, PerPage: 100, Total: 250, LastPage: 3},
		},
		{
			name: "empty", target: "/items", total: listtotal.Exact(0),
			wantLinks: httpx.Links{First: "http://example.com/items?page=1", Last: "http://example.com/items?page=1"},
			wantMeta:  httpx.Meta{CurrentPage: 1, PerPage: 25, Total: 0, LastPage: 1},
		},
		{
			name: "exact multiple", target: "/items?per_page=5", total: listtotal.Exact(10),
			wantLinks: httpx.Links{
				First: "http://example.com/items?page=1&per_page=5",
				Last:  "http://example.com/items?page=2&per_page=5",
				Next:  ptr("http://example.com/items?page=2&per_page=5"),
			},
			wantMeta: httpx.Meta{CurrentPage: 1, PerPage: 5, Total: 10, LastPage: 2},
		},
		{
			name: "estimated total", target: "/items?page=2&per_page=100", total: listtotal.Total{N: 10001, Estimated: true},
			wantLinks: httpx.Links{
				First: "http://example.com/items?page=1&per_page=100",
				Last:  "http://example.com/items?page=101&per_page=100",
				Prev:  ptr("http://example.com/items?page=1&per_page=100"),
				Next:  ptr("http://example.com/items?page=3&per_page=100"),
			},
			wantMeta: httpx.Meta{CurrentPage: 2, PerPage: 100, Total: 10001, LastPage: 101, TotalIsEstimate: true},
		},
		{
			name: "full last page of an exact total", target: "/items?per_page=1", total: listtotal.Exact(1),
			wantLinks: httpx.Links{First: "http://example.com/items?page=1&per_page=1", Last: "http://example.com/items?page=1&per_page=1"},
			wantMeta:  httpx.Meta{CurrentPage: 1, PerPage: 1, Total: 1, LastPage: 1},
		},
		{
			name: "full page past an estimated last page", target: "/items?page=3&per_page=1", total: listtotal.Total{N: 2, Estimated: true},
			wantLinks: httpx.Links{
				First: "http://example.com/items?page=1&per_page=1",
				Last:  "http://example.com/items?page=2&per_page=1",
				Prev:  ptr("http://example.com/items?page=2&per_page=1"),
				Next:  ptr("http://example.com/items?page=4&per_page=1"),
			},
			wantMeta: httpx.Meta{CurrentPage: 3, PerPage: 1, Total: 2, LastPage: 2, TotalIsEstimate: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			app.Get("/*", func(c *fiber.Ctx) error {
				p, err := httpx.ParsePage(c, 25)
				if err != nil {
					return err
				}
				var items []int
				if tt.total.N > 0 {
					items = []int{1}
				}
				return httpx.Collection(c, items, p, tt.total)
			})
			req := httptest.NewRequest(http.MethodGet, tt.target, nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp, body := do(t, app, req)
			if resp.StatusCode != 200 {
				t.Fatalf("status = %d (%s)", resp.StatusCode, body)
			}
			var got collection
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Data == nil {
				t.Errorf("data is null, want an array: %s", body)
			}
			if diff := cmp.Diff(tt.wantLinks, got.Links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMeta, got.Meta); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			// An exact total's meta has no total_is_estimate at all.
			if has := bytes.Contains(body, []byte(`"total_is_estimate"`)); has != tt.total.Estimated {
				t.Errorf("total_is_estimate present = %v, want %v: %s", has, tt.total.Estimated, body)
			}
		})
	}
}

func TestCollectionLinksKeepAmpersands(t *testing.T) {
	t.Parallel()
	app := httpx.NewApp(nil)
	app.Get("/items", func(c *fiber.Ctx) error {
		p, err := httpx.ParsePage(c, 25)
		if err != nil {
			return err
		}
		return httpx.Collection(c, []int{1}, p, listtotal.Exact(1))
	})
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/items?status=paid&per_page=1", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if bytes.Contains(body, []byte(`\u0026`)) || !bytes.Contains(body, []byte("&per_page=1")) {
		t.Errorf("links are escaped: %s", body)
	}
}
