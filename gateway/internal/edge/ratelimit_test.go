package edge_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/peertest"
	"github.com/paylane/paylane/libs/authz"
)

func wantLimitHeaders(t *testing.T, got response, limit, remaining int) {
	t.Helper()
	if l, r := got.header.Get("X-RateLimit-Limit"), got.header.Get("X-RateLimit-Remaining"); l != strconv.Itoa(limit) || r != strconv.Itoa(remaining) {
		t.Errorf("X-RateLimit-Limit %q Remaining %q, want %d and %d", l, r, limit, remaining)
	}
}

func wantRateLimited(t *testing.T, got response) {
	t.Helper()
	wantError(t, got, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(got.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After = %q, want whole seconds >= 1", got.header.Get("Retry-After"))
	}
}

func TestTokenLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.Limits.Token = 3 })
	for i := range 3 {
		got := do(t, e.url, req{path: "/api/v1/contacts", token: e.token})
		if got.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, got.status)
		}
		wantLimitHeaders(t, got, 3, 2-i)
	}
	got := do(t, e.url, req{path: "/api/v1/contacts", token: e.token})
	wantRateLimited(t, got)
	wantLimitHeaders(t, got, 3, 0)
	// Errors after authentication carry the headers too.
	other := e.identity.Issue(t, peertest.Token{ID: 7, TenantID: "TENANT1"})
	bad := do(t, e.url, req{method: http.MethodPost, path: "/api/v1/contacts", token: other, body: []byte("{")})
	wantError(t, bad, http.StatusBadRequest, "bad_request")
	wantLimitHeaders(t, bad, 3, 2)
}

func TestTenantOverridesTokenLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	token := e.identity.Issue(t, peertest.Token{ID: 5, TenantID: "TENANT2", Limits: authz.Limits{APIRequestsPerMinute: 2}})
	for i := range 2 {
		got := do(t, e.url, req{path: "/api/v1/contacts", token: token})
		if got.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, got.status)
		}
		wantLimitHeaders(t, got, 2, 1-i)
	}
	wantRateLimited(t, do(t, e.url, req{path: "/api/v1/contacts", token: token}))
	// The default still applies to the other tenant's token.
	wantLimitHeaders(t, do(t, e.url, req{path: "/api/v1/contacts", token: e.token}), 60, 59)
}

func TestIPLimitForRequestsWithoutValidToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.Limits.IP = 3 })
	if got := do(t, e.url, req{path: "/api/v1/healthcheck/app"}); got.status != http.StatusOK {
		t.Fatalf("health: %d", got.status)
	}
	wantError(t, do(t, e.url, req{path: "/api/v1/contacts"}), 401, "unauthenticated")
	wantError(t, do(t, e.url, req{path: "/api/v1/contacts", token: "pl_9|AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}), 401, "unauthenticated")
	got := do(t, e.url, req{path: "/api/v1/healthcheck/app"})
	wantRateLimited(t, got)
	wantLimitHeaders(t, got, 3, 0)
	wantRateLimited(t, do(t, e.url, req{path: "/api/v1/contacts"}))
	// The hosted pages have budgets of their own (pagelimit_test.go).
	if got := do(t, e.url, req{path: "/l/r/x"}); got.status != http.StatusOK {
		t.Errorf("hosted page after the API's per-IP budget is spent: %d, want 200", got.status)
	}
	// A valid token has its own budget.
	if got := do(t, e.url, req{path: "/api/v1/contacts", token: e.token}); got.status != http.StatusOK {
		t.Errorf("valid token: %d, want 200", got.status)
	}
}

func TestWebhookLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.Limits.IP, cfg.Limits.Webhook = 1, 3 })
	for i := range 3 {
		got := do(t, e.url, req{method: http.MethodPost, path: "/webhooks/sms/inbound", body: []byte("a=b"), contentType: "application/x-www-form-urlencoded"})
		if got.status != http.StatusOK {
			t.Fatalf("callback %d: %d", i+1, got.status)
		}
	}
	wantRateLimited(t, do(t, e.url, req{method: http.MethodPost, path: "/webhooks/sms/inbound"}))
	if got := do(t, e.url, req{path: "/l/r/x"}); got.status != http.StatusOK {
		t.Errorf("hosted page: %d, want 200 (separate per-IP budget)", got.status)
	}
}

// TestDashboardIsNotRateLimited: dashboard requests never count against
// the API's limits, nor have one of their own at the edge.
func TestDashboardIsNotRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.Limits.IP = 1 })
	for i := range 5 {
		got := do(t, e.url, req{path: "/dashboard/sign-in"})
		if got.status != http.StatusOK {
			t.Fatalf("dashboard request %d: %d, want 200", i+1, got.status)
		}
		if got.header.Get(edge.HeaderLimit) != "" {
			t.Errorf("dashboard request %d carries %s", i+1, edge.HeaderLimit)
		}
	}
	// The per-IP budget of unauthenticated API calls is untouched.
	if got := do(t, e.url, req{path: "/api/v1/healthcheck/app"}); got.status != http.StatusOK {
		t.Errorf("health after dashboard requests: %d, want 200", got.status)
	}
}
