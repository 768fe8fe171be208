package apierr_test

import (
	"encoding/json"
	"errors"
	"fmt"
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

// domainError is a small domain error type that carries its answer.
type domainError struct{ field string }

func (e *domainError) Error() string { return "thing: bad " + e.field }
func (e *domainError) APIError() *apierr.Error {
	return apierr.Field(e.field, "The "+e.field+" field is bad.")
}

func TestSentinelAndFrom(t *testing.T) {
	t.Parallel()
	errGone := apierr.NewSentinel("thing: gone", apierr.NotFound())
	errAlsoGone := apierr.NewSentinel("other: gone", apierr.NotFound())
	errBusy := apierr.NewSentinel("thing: busy", apierr.Unavailable("Busy; retry.", 3))
	tests := []struct {
		name       string
		err        error
		wantOK     bool
		wantStatus int
		wantCode   string
		wantRetry  int
	}{
		{"sentinel", errGone, true, http.StatusNotFound, apierr.CodeResourceNotFound, 0},
		{"wrapped sentinel", fmt.Errorf("loading thing: %w", errGone), true, http.StatusNotFound, apierr.CodeResourceNotFound, 0},
		{"sentinel with retry after", fmt.Errorf("a: %w", errBusy), true, http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, 3},
		{"error type", fmt.Errorf("saving: %w", &domainError{field: "name"}), true, http.StatusUnprocessableEntity, apierr.CodeValidationFailed, 0},
		{"api error", apierr.Forbidden(), true, http.StatusForbidden, apierr.CodeForbidden, 0},
		{"outermost answer wins", fmt.Errorf("%w: %w", errBusy, errGone), true, http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, 3},
		{"plain error", errors.New("disk on fire"), false, 0, "", 0},
		{"nil", nil, false, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := apierr.From(tt.err)
			if ok != tt.wantOK {
				t.Fatalf("From ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if got.Status != tt.wantStatus || got.Code != tt.wantCode || got.RetryAfter != tt.wantRetry {
				t.Errorf("From = %d %s retry %d, want %d %s retry %d", got.Status, got.Code, got.RetryAfter, tt.wantStatus, tt.wantCode, tt.wantRetry)
			}
		})
	}
	t.Run("identity", func(t *testing.T) {
		t.Parallel()
		wrapped := fmt.Errorf("loading: %w", errGone)
		if !errors.Is(wrapped, errGone) {
			t.Error("errors.Is(wrapped, errGone) = false, want true")
		}
		if errors.Is(wrapped, errAlsoGone) {
			t.Error("two sentinels with the same answer compare equal; want distinct values")
		}
		if errGone.Error() != "thing: gone" {
			t.Errorf("Error() = %q, want the sentinel's text", errGone.Error())
		}
	})
	t.Run("answer is a copy", func(t *testing.T) {
		t.Parallel()
		limited := apierr.New(http.StatusTooManyRequests, apierr.CodeRateLimited, "Slow down.")
		limited.Headers = map[string]string{"X-RateLimit-Remaining": "0"}
		s := apierr.NewSentinel("thing: limited", limited)
		first := s.APIError()
		first.Message = "changed"
		first.Headers["X-RateLimit-Remaining"] = "changed"
		second := s.APIError()
		if second.Message != "Slow down." || second.Headers["X-RateLimit-Remaining"] != "0" {
			t.Errorf("a changed answer leaked into the sentinel: %+v", second)
		}
	})
}
