package edge_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
)

// wantPage429 checks a hosted page's 429 for a browser: HTML saying when to
// come back, with Retry-After and the request id.
func wantPage429(t *testing.T, got response) {
	t.Helper()
	if got.status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", got.status, got.body)
	}
	if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q, want text/html", ct)
	}
	id := got.header.Get("X-Request-Id")
	if ra := got.header.Get("Retry-After"); ra == "" || ra == "0" ||
		!strings.Contains(string(got.body), "Try again in "+ra+" second") || id == "" || !strings.Contains(string(got.body), id) {
		t.Errorf("Retry-After %q, X-Request-Id %q, page:\n%s", ra, id, got.body)
	}
}

// TestHostedPageLimits: the 31st request to one payment link within a
// minute is refused while another link, the payout page and the API's
// health probe still answer; the budget is the link's whatever follows its
// id; a client asking for JSON gets the envelope.
func TestHostedPageLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const link = "/l/r/01KAAAAAAAAAAAAAAAAAAAAAAA"
	for i := range 30 {
		got := do(t, e.url, req{path: link + "?expires=1&signature=ab", accept: "text/html"})
		if got.status != http.StatusOK || !strings.HasPrefix(got.echo.URI, link) {
			t.Fatalf("request %d: %d %s", i+1, got.status, got.body)
		}
		wantLimitHeaders(t, got, 30, 29-i)
	}
	wantPage429(t, do(t, e.url, req{path: link + "?expires=2&signature=cd", accept: "text/html"}))
	wantPage429(t, do(t, e.url, req{method: http.MethodPost, path: link, contentType: "application/x-www-form-urlencoded", body: []byte("a=b")}))
	wantRateLimited(t, do(t, e.url, req{path: link, accept: "application/json"}))
	wantPage429(t, do(t, e.url, req{path: link + "/more"}))

	for _, path := range []string{"/l/r/01KBBBBBBBBBBBBBBBBBBBBBBB", "/l/p/01KAAAAAAAAAAAAAAAAAAAAAAA", "/api/v1/healthcheck/app"} {
		if got := do(t, e.url, req{path: path}); got.status != http.StatusOK {
			t.Errorf("%s after one link's budget is spent: %d, want 200", path, got.status)
		}
	}
}

// TestHostedPagePerIPLimit: the pages share a per-IP budget of their own,
// apart from the API's; an opt-in landing page (printed on posters) counts
// against it only.
func TestHostedPagePerIPLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.Limits.IP, cfg.Limits.PageIP, cfg.Limits.PageLink = 2, 6, 2 })
	for i := range 4 {
		if got := do(t, e.url, req{path: "/l/o/POSTER"}); got.status != http.StatusOK {
			t.Fatalf("opt-in page %d: %d (no per-link limit on opt-in codes)", i+1, got.status)
		}
	}
	for i := range 2 {
		got := do(t, e.url, req{path: fmt.Sprintf("/l/p/01KCCCCCCCCCCCCCCCCCCCCCC%d", i)})
		if got.status != http.StatusOK {
			t.Fatalf("payout page %d: %d", i+1, got.status)
		}
		// The headers are those of the budget with the fewest left: the
		// client's IP (6 - 4 - i - 1), not the fresh link (1).
		wantLimitHeaders(t, got, 6, 1-i)
	}
	got := do(t, e.url, req{path: "/l/r/01KDDDDDDDDDDDDDDDDDDDDDDD"})
	wantPage429(t, got)
	wantLimitHeaders(t, got, 6, 0)
	// The API's per-IP budget is untouched.
	for i := range 2 {
		if got := do(t, e.url, req{path: "/api/v1/healthcheck/app"}); got.status != http.StatusOK {
			t.Errorf("health probe %d: %d", i+1, got.status)
		}
	}
}
