package client_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/transactions-svc/client"
)

// tenantToken is a token naming tenant (unsigned: the fake reads it only).
func tenantToken(tenant string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"EdDSA"}`)) + "." + enc([]byte(`{"tenant_id":"`+tenant+`"}`)) + ".sig"
}

// fakeStatus answers status[tenant] (200 with a status when absent) and
// counts the calls of each tenant.
func fakeStatus(t *testing.T, status map[string]int) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	calls := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant := breaker.TenantOf(r.Header.Get("Authorization"))
		mu.Lock()
		calls[tenant]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if s, ok := status[tenant]; ok {
			w.WriteHeader(s)
			_, _ = w.Write([]byte(`{"error":{"code":"some_code","message":"refused"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"data":{"transaction_id":"T1","direction":"receivable","status":"draft"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func(tenant string) int { mu.Lock(); defer mu.Unlock(); return calls[tenant] }
}

func TestBreakerIsPerTenant(t *testing.T) {
	t.Parallel()
	srv, calls := fakeStatus(t, map[string]int{"A": 500})
	c := client.New(srv.URL, nil)
	ctx := context.Background()
	for range 5 {
		if _, err := c.Status(ctx, tenantToken("A"), "T1"); client.StatusOf(err) != 500 {
			t.Fatalf("A: %v, want the 500", err)
		}
	}
	if _, err := c.Status(ctx, tenantToken("A"), "T1"); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("A's sixth call = %v, want ErrUnavailable", err)
	}
	for range 20 {
		if st, err := c.Status(ctx, tenantToken("B"), "T1"); err != nil || st.TransactionID != "T1" {
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
		srv, calls := fakeStatus(t, map[string]int{"A": status})
		c := client.New(srv.URL, nil)
		for range 10 {
			_, err := c.Status(context.Background(), tenantToken("A"), "T1")
			if client.StatusOf(err) != status || errors.Is(err, client.ErrUnavailable) {
				t.Fatalf("answer %d came back as %v", status, err)
			}
		}
		if n := calls("A"); n != 10 {
			t.Errorf("%d: called %d times, want 10 (no breaker opened)", status, n)
		}
	}
}
