package paylane_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	paylane "github.com/paylane/paylane/sdk/go"
)

// TestNewSendsTheTokenUnderAPIv1: whatever form the base URL takes, requests
// go to /api/v1/... with the bearer token, and an error answer becomes an
// *APIError carrying the envelope.
func TestNewSendsTheTokenUnderAPIv1(t *testing.T) {
	t.Parallel()
	type seen struct{ path, auth string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.Path, r.Header.Get("Authorization")}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"resource_not_found","message":"No such contact.","request_id":"01JD3X0Q4Z8W2E5R7T9Y1U3I5Q"}}`))
	}))
	t.Cleanup(srv.Close)

	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/api/v1", srv.URL + "/api/v1/"} {
		t.Run(base, func(t *testing.T) {
			c, err := paylane.New(base, "pl_1|secret")
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.ShowContactWithResponse(context.Background(), "01JD3X0Q4Z8W2E5R7T9Y1U3I5K", nil)
			if err != nil {
				t.Fatal(err)
			}
			if s := <-got; s.path != "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1U3I5K" || s.auth != "Bearer pl_1|secret" {
				t.Errorf("request went to %q with Authorization %q", s.path, s.auth)
			}
			err = paylane.Check(resp.StatusCode(), resp.JSONDefault)
			var apiErr *paylane.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("Check = %v, want an *APIError", err)
			}
			if apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "resource_not_found" || apiErr.RequestID != "01JD3X0Q4Z8W2E5R7T9Y1U3I5Q" {
				t.Errorf("APIError = %+v", apiErr)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	if err := paylane.Check(http.StatusCreated, nil); err != nil {
		t.Errorf("Check(201) = %v, want nil", err)
	}
	var apiErr *paylane.APIError
	if err := paylane.Check(http.StatusBadGateway, nil); !errors.As(err, &apiErr) || apiErr.Code != "unknown" || apiErr.StatusCode != http.StatusBadGateway {
		t.Errorf("Check(502, no envelope) = %v, want an *APIError with code unknown", err)
	}
	if _, err := paylane.New("https://api.example.com", ""); err == nil {
		t.Error("New without a token succeeded")
	}
}
