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
	"github.com/paylane/paylane/optin-svc/client"
)

// tenantToken is a token naming tenant (unsigned: the fake reads it only).
func tenantToken(tenant string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"EdDSA"}`)) + "." + enc([]byte(`{"tenant_id":"`+tenant+`"}`)) + ".sig"
}

// fakeOptIn answers status[tenant] (200 "none" when absent) and counts the
// calls of each tenant.
func fakeOptIn(t *testing.T, status map[string]int) (*httptest.Server, func(string) int) {
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
		_, _ = w.Write([]byte(`{"data":{"status":"none","consents":[]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func(tenant string) int { mu.Lock(); defer mu.Unlock(); return calls[tenant] }
}

func statusOf(err error) int {
	var e *client.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func TestBreakerIsPerTenant(t *testing.T) {
	t.Parallel()
	srv, calls := fakeOptIn(t, map[string]int{"A": 503})
	c := client.New(srv.URL, nil)
	ctx := context.Background()
	for range 5 {
		if _, _, err := c.OptInStatus(ctx, tenantToken("A"), "C1", ""); statusOf(err) != 503 {
			t.Fatalf("A: %v, want the 503", err)
		}
	}
	if _, _, err := c.OptInStatus(ctx, tenantToken("A"), "C1", ""); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("A's sixth call = %v, want ErrUnavailable", err)
	}
	if n := calls("A"); n != 5 {
		t.Errorf("A reached optin-svc %d times, want 5", n)
	}
	for range 20 {
		if st, _, err := c.OptInStatus(ctx, tenantToken("B"), "C1", ""); err != nil || st != client.StatusNone {
			t.Fatalf("B while A's breaker is open = %q, %v", st, err)
		}
	}
}

func TestFourXXPassesThroughAndNeverOpens(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 403, 404, 422, 429} {
		srv, calls := fakeOptIn(t, map[string]int{"A": status})
		c := client.New(srv.URL, nil)
		for range 10 {
			if _, _, err := c.OptInStatus(context.Background(), tenantToken("A"), "C1", ""); statusOf(err) != status {
				t.Fatalf("answer %d came back as %v", status, err)
			}
		}
		if n := calls("A"); n != 10 {
			t.Errorf("%d: called %d times, want 10", status, n)
		}
	}
}
