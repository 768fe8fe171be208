package httpx_test

import (
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
