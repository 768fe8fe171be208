package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/client"
)

func TestBreakerIsPerTenant(t *testing.T) {
	t.Parallel()
	srv, calls := testkit.TenantServer(t, map[string]int{"A": 503}, `{"data":{"status":"none","consents":[]}}`)
	c := client.New(srv.URL, nil)
	ctx := context.Background()
	for range 5 {
		if _, _, err := c.OptInStatus(ctx, testkit.TenantToken("A"), "C1", ""); client.StatusOf(err) != 503 {
			t.Fatalf("A: %v, want the 503", err)
		}
	}
	if _, _, err := c.OptInStatus(ctx, testkit.TenantToken("A"), "C1", ""); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("A's sixth call = %v, want ErrUnavailable", err)
	}
	if n := calls("A"); n != 5 {
		t.Errorf("A reached optin-svc %d times, want 5", n)
	}
	for range 20 {
		if st, _, err := c.OptInStatus(ctx, testkit.TenantToken("B"), "C1", ""); err != nil || st != client.StatusNone {
			t.Fatalf("B while A's breaker is open = %q, %v", st, err)
		}
	}
}

func TestFourXXPassesThroughAndNeverOpens(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 403, 404, 422, 429} {
		srv, calls := testkit.TenantServer(t, map[string]int{"A": status}, `{"data":{"status":"none","consents":[]}}`)
		c := client.New(srv.URL, nil)
		for range 10 {
			if _, _, err := c.OptInStatus(context.Background(), testkit.TenantToken("A"), "C1", ""); client.StatusOf(err) != status {
				t.Fatalf("answer %d came back as %v", status, err)
			}
		}
		if n := calls("A"); n != 10 {
			t.Errorf("%d: called %d times, want 10", status, n)
		}
	}
}
