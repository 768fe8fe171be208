package gateway_test

import (
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
)

// Two replicas sharing Redis share each payment link's budget (30 a minute
// by default); another link and the API's health probe still answer.
func TestHostedPageLinkLimitIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	cfg.RedisURL = testkit.Redis(t)
	first, second := start(t, cfg), start(t, cfg)
	c := http.DefaultClient
	page := func(addr, id string) answer {
		return call(t, c, http.MethodGet, url("http", addr, "/l/r/"+id+"?expires=1&signature=ab"), "")
	}
	const link = "01KAAAAAAAAAAAAAAAAAAAAAAA"
	for i := range 30 {
		addr := first.Public
		if i%2 == 1 {
			addr = second.Public
		}
		if got := page(addr, link); got.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, got.status)
		}
	}
	got := page(first.Public, link)
	if got.status != http.StatusTooManyRequests || got.header.Get("Retry-After") == "" ||
		got.header.Get("X-RateLimit-Limit") != "30" || got.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("31st request: %d, Retry-After %q, X-RateLimit-Limit %q Remaining %q", got.status,
			got.header.Get("Retry-After"), got.header.Get("X-RateLimit-Limit"), got.header.Get("X-RateLimit-Remaining"))
	}
	if got := page(second.Public, "01KBBBBBBBBBBBBBBBBBBBBBBB"); got.status != http.StatusOK {
		t.Errorf("another link: %d", got.status)
	}
	if got := call(t, c, http.MethodGet, url("http", second.Public, "/api/v1/healthcheck/app"), ""); got.status != http.StatusOK {
		t.Errorf("health probe: %d", got.status)
	}
}
