package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/client"
)

func TestBreakerIsPerTenant(t *testing.T) {
	t.Parallel()
	srv, calls := testkit.TenantServer(t, map[string]int{"A": 500}, `{"data":{"transaction_id":"T1","direction":"receivable","status":"draft"}}`)
	c := client.New(srv.URL, nil)
	ctx := context.Background()
	for range 5 {
		if _, err := c.Status(ctx, testkit.TenantToken("A"), "T1"); client.StatusOf(err) != 500 {
			t.Fatalf("A: %v, want the 500", err)
		}
	}
	if _, err := c.Status(ctx, testkit.TenantToken("A"), "T1"); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("A's sixth call = %v, want ErrUnavailable", err)
	}
	for range 20 {
		if st, err := c.Status(ctx, testkit.TenantToken("B"), "T1"); err != nil || st.TransactionID != "T1" {
			t.Fatalf("B while A's breaker is open = %+v, %v", st, err)
		}
	}
	if n := calls("A"); n != 5 {
		t.Errorf("A reached transactions-svc %d times, want 5", n)
	}
}

func TestEveryFourXXPassesThroughAndNeverOpens(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 403, 404, 409, 422, 429} {
		srv, calls := testkit.TenantServer(t, map[string]int{"A": status}, `{"data":{"transaction_id":"T1","direction":"receivable","status":"draft"}}`)
		c := client.New(srv.URL, nil)
		for range 10 {
			_, err := c.Status(context.Background(), testkit.TenantToken("A"), "T1")
			if client.StatusOf(err) != status || errors.Is(err, client.ErrUnavailable) {
				t.Fatalf("answer %d came back as %v", status, err)
			}
		}
		if n := calls("A"); n != 10 {
			t.Errorf("%d: called %d times, want 10 (no breaker opened)", status, n)
		}
	}
}
