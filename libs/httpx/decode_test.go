package httpx_test

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

type decodeTarget struct {
	Name    string `json:"name"`
	Amount  int    `json:"amount"`
	Contact *struct {
		Phone string `json:"phone"`
	} `json:"contact"`
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		wantStatus  int
		wantCode    string
		wantDetails map[string][]string
		wantName    string
	}{
		{name: "object", body: `{"name":"Ada","amount":5}`, wantStatus: 200, wantName: "Ada"},
		{name: "empty body", body: "", wantStatus: 200},
		{name: "whitespace body", body: " \n ", wantStatus: 200},
		{name: "invalid json", body: `{"name":`, wantStatus: 400, wantCode: apierr.CodeBadRequest},
		{name: "trailing garbage", body: `{"name":"a"} x`, wantStatus: 400, wantCode: apierr.CodeBadRequest},
		{name: "array body", body: `[{"name":"a"}]`, wantStatus: 422, wantCode: apierr.CodeValidationFailed},
		{name: "string body", body: `"hello"`, wantStatus: 422, wantCode: apierr.CodeValidationFailed},
		{name: "unknown field", body: `{"name":"a","sned_at":"x"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed,
			wantDetails: map[string][]string{"sned_at": {"The sned_at field is not allowed."}}},
		{name: "wrong type", body: `{"amount":"ten"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed,
			wantDetails: map[string][]string{"amount": {"The amount field must be an integer."}}},
		{name: "fraction for integer", body: `{"amount":1.5}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed,
			wantDetails: map[string][]string{"amount": {"The amount field must be an integer."}}},
		{name: "nested wrong type", body: `{"contact":{"phone":12}}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed,
			wantDetails: map[string][]string{"contact.phone": {"The contact.phone field must be a string."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			details, isError := postDecode[decodeTarget](t, tt.body, tt.wantStatus, tt.wantCode)
			if !isError {
				return
			}
			if tt.wantDetails != nil {
				if diff := cmp.Diff(tt.wantDetails, details); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDataAndNoContent(t *testing.T) {
	t.Parallel()
	app := newApp(t, nil)
	app.Get("/data", func(c *fiber.Ctx) error { return httpx.Data(c, 201, map[string]int{"n": 1}) })
	app.Delete("/data", httpx.NoContent)

	resp, body := get(t, app, "/data")
	if resp.StatusCode != 201 {
		t.Errorf("status = %d, want 201", resp.StatusCode)
	}
	if diff := cmp.Diff(`{"data":{"n":1}}`, string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	resp, body = do(t, app, mustRequest(t, "DELETE", "/data"))
	if resp.StatusCode != 204 || len(body) != 0 {
		t.Errorf("DELETE = %d %q, want 204 and no body", resp.StatusCode, body)
	}
}
