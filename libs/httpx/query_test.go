package httpx_test

import (
	"encoding/json"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// TestQuery: a text parameter holding %00 or bytes that are not UTF-8 is
// 422 naming it; Queries names every bad parameter in one 422.
func TestQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		wantStatus  int
		wantBody    string
		wantDetails map[string][]string
	}{
		{name: "absent", query: "", wantStatus: 200, wantBody: `{"data":{"a":"","b":""}}`},
		{name: "plain", query: "?a=x%20y&b=%E2%82%AC", wantStatus: 200, wantBody: `{"data":{"a":"x y","b":"€"}}`},
		{name: "NUL", query: "?a=x%00", wantStatus: 422,
			wantDetails: map[string][]string{"a": {"The a field must not contain the NUL character."}}},
		{name: "not UTF-8", query: "?b=%FF", wantStatus: 422,
			wantDetails: map[string][]string{"b": {"The b field must be valid UTF-8 text."}}},
		{name: "truncated UTF-8", query: "?b=%E2%82", wantStatus: 422,
			wantDetails: map[string][]string{"b": {"The b field must be valid UTF-8 text."}}},
		{name: "both", query: "?a=%00&b=%C0%80", wantStatus: 422,
			wantDetails: map[string][]string{"a": {"The a field must not contain the NUL character."}, "b": {"The b field must be valid UTF-8 text."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			app.Get("/", func(c *fiber.Ctx) error {
				q := httpx.Queries(c)
				out := map[string]string{"a": q.Text("a"), "b": q.Text("b")}
				if err := q.Err(); err != nil {
					return err
				}
				return httpx.Data(c, 200, out)
			})
			resp, body := get(t, app, "/"+tt.query)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 {
				if string(body) != tt.wantBody {
					t.Errorf("body = %s, want %s", body, tt.wantBody)
				}
				return
			}
			env := decodeEnvelope(t, body)
			if env.Error.Code != apierr.CodeValidationFailed {
				t.Errorf("code = %q", env.Error.Code)
			}
			if diff := cmp.Diff(tt.wantDetails, env.Error.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueryIDs: a list of ids reads sorted and each once; an empty list,
// too many ids, one that is not an id or a NUL is 422 naming the parameter.
func TestQueryIDs(t *testing.T) {
	t.Parallel()
	const a, b = "01M8JE5E08PP108KMPPN0XY8QM", "01M8JE5E1K8SSF8RHZBHSDNPE9"
	tests := []struct {
		name, query string
		want        []string
		wantDetail  string
	}{
		{name: "sorted, each once", query: "?ids=" + b + "," + a + "," + b, want: []string{a, b}},
		{name: "absent", query: "", wantDetail: "The ids field is required."},
		{name: "empty", query: "?ids=", wantDetail: "The ids field is required."},
		{name: "too many", query: "?ids=" + a + "," + a + "," + a + "," + b, wantDetail: "The ids field must not have more than 3 items."},
		{name: "not an id", query: "?ids=" + a + ",x", wantDetail: "Each of the ids must be a widget id."},
		{name: "lower case", query: "?ids=01m8je5e08pp108kmppn0xy8qm", wantDetail: "Each of the ids must be a widget id."},
		{name: "trailing comma", query: "?ids=" + a + ",", wantDetail: "Each of the ids must be a widget id."},
		{name: "NUL", query: "?ids=%00", wantDetail: "The ids field must not contain the NUL character."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			app.Get("/", func(c *fiber.Ctx) error {
				q := httpx.Queries(c)
				list := q.IDs("ids", 3, "widget")
				if err := q.Err(); err != nil {
					return err
				}
				return httpx.Data(c, 200, list)
			})
			resp, body := get(t, app, "/"+tt.query)
			if tt.wantDetail == "" {
				var got struct{ Data []string }
				if resp.StatusCode != 200 || json.Unmarshal(body, &got) != nil {
					t.Fatalf("status = %d (%s), want 200", resp.StatusCode, body)
				}
				if diff := cmp.Diff(tt.want, got.Data); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
				return
			}
			if resp.StatusCode != 422 {
				t.Fatalf("status = %d (%s), want 422", resp.StatusCode, body)
			}
			env := decodeEnvelope(t, body)
			if diff := cmp.Diff(map[string][]string{"ids": {tt.wantDetail}}, env.Error.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}
