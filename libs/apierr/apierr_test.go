package apierr_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
)

func TestMarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *apierr.Error
		rid  string
		want string
	}{
		{"not found", apierr.NotFound(), "01JD3X0Q4Z8W2E5R7T9Y1V3K5M",
			`{"error":{"code":"resource_not_found","message":"The requested resource was not found.","request_id":"01JD3X0Q4Z8W2E5R7T9Y1V3K5M"}}`},
		{"validation details", apierr.Field("phone", "The phone field is required."), "r",
			`{"error":{"code":"validation_failed","message":"The given data was invalid.","details":{"phone":["The phone field is required."]},"request_id":"r"}}`},
		{"transition", apierr.InvalidTransition("paid", "cancelled"), "",
			`{"error":{"code":"invalid_transition","message":"paid -> cancelled","details":{"from":"paid","to":"cancelled"}}}`},
		{"unencodable details dropped", &apierr.Error{Status: 500, Code: "server_error", Message: "Server error.", Details: func() {}}, "r",
			`{"error":{"code":"server_error","message":"Server error.","request_id":"r"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, string(tt.err.Marshal(tt.rid))); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			var env apierr.Envelope
			if err := json.Unmarshal(tt.err.Marshal(tt.rid), &env); err != nil {
				t.Fatalf("envelope is not JSON: %v", err)
			}
		})
	}
}

func TestConstructors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    *apierr.Error
		status int
		code   string
	}{
		{"route", apierr.RouteNotFound(), http.StatusNotFound, "route_not_found"},
		{"unauthenticated", apierr.Unauthenticated(), http.StatusUnauthorized, "unauthenticated"},
		{"forbidden", apierr.Forbidden(), http.StatusForbidden, "forbidden"},
		{"bad request", apierr.BadRequest("Malformed JSON."), http.StatusBadRequest, "bad_request"},
		{"internal", apierr.Internal(), http.StatusInternalServerError, "server_error"},
		{"transition", apierr.InvalidTransition("active", "active"), http.StatusUnprocessableEntity, "invalid_transition"},
		{"validation", apierr.Validation(map[string][]string{"a": {"b"}}), http.StatusUnprocessableEntity, "validation_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.err.Status != tt.status || tt.err.Code != tt.code {
				t.Errorf("got %d %s, want %d %s", tt.err.Status, tt.err.Code, tt.status, tt.code)
			}
			if tt.err.Error() == "" {
				t.Error("Error() is empty")
			}
		})
	}
}
