package gateway_test

import (
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/gateway/internal/peertest"
	"github.com/paylane/paylane/libs/testkit"
)

// keyWorld is a gateway configuration with two upstream services: one
// owning /api/v1/contacts, the other /api/v1/webhook-endpoints.
type keyWorld struct {
	*world
	contacts, webhooks *peertest.Upstream
}

func newKeyWorld(t *testing.T) *keyWorld {
	w := newWorld(t)
	return &keyWorld{world: w, contacts: w.upstream, webhooks: peertest.NewUpstream(t, w.identity.Signer.JWKS())}
}

func (w *keyWorld) config() gateway.Config {
	cfg := w.world.config()
	cfg.Routes = append(cfg.Routes,
		gateway.Route{Prefix: "/api/v1/contacts", Upstream: w.contacts.URL},
		gateway.Route{Prefix: "/api/v1/webhook-endpoints", Upstream: w.webhooks.URL})
	return cfg
}

// send sends a JSON request with an Idempotency-Key (none when empty).
func send(t *testing.T, method, url, authorization, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return do(t, http.DefaultClient, req)
}

func wantForwarded(t *testing.T, what string, a answer, method, path string) {
	t.Helper()
	if a.status != http.StatusOK || a.echo.Method != method || a.echo.URI != path {
		t.Fatalf("%s: %d %s, want the upstream's 200 echo of %s %s", what, a.status, bytes.TrimSpace(a.body), method, path)
	}
}

// A key first used on one service's route is refused on another service's
// route (409 idempotency_conflict, not forwarded), whichever replica sharing
// the Redis receives it; the first service keeps getting it, another tenant
// may use the same key, and reads and over-long keys are left alone.
func TestIdempotencyKeyScopeIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	w := newKeyWorld(t)
	cfg := w.config()
	cfg.RedisURL = testkit.Redis(t)
	first, second := start(t, cfg), start(t, cfg)
	tok := bearer(w.identity.Issue(t, token(1)))
	other := bearer(w.identity.Issue(t, peertest.Token{ID: 2, TenantID: "TENANT2"}))
	const key = "K-0123456789"

	wantForwarded(t, "first use", send(t, http.MethodPost, url("http", first.Public, "/api/v1/contacts"), tok, key, `{"phone":"+12025550101"}`),
		http.MethodPost, "/api/v1/contacts")
	before := len(w.webhooks.Authorizations())
	for _, addr := range []string{second.Public, first.Public} {
		wantError(t, send(t, http.MethodPost, url("http", addr, "/api/v1/webhook-endpoints"), tok, key, `{"url":"https://example.com/hook"}`),
			http.StatusConflict, "idempotency_conflict")
	}
	if got := len(w.webhooks.Authorizations()); got != before {
		t.Errorf("the webhook service received %d refused requests, want none", got-before)
	}
	// Same service: forwarded, the service's own record decides.
	wantForwarded(t, "retry on the first replica", send(t, http.MethodPost, url("http", second.Public, "/api/v1/contacts"), tok, key, `{"phone":"+12025550101"}`),
		http.MethodPost, "/api/v1/contacts")
	wantForwarded(t, "same service, other route", send(t, http.MethodPatch, url("http", second.Public, "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N"), tok, key, `{}`),
		http.MethodPatch, "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
	// Another tenant's key of the same spelling is another key.
	wantForwarded(t, "other tenant", send(t, http.MethodPost, url("http", second.Public, "/api/v1/webhook-endpoints"), other, key, `{}`),
		http.MethodPost, "/api/v1/webhook-endpoints")
	// A read carries no key to bind.
	wantForwarded(t, "read", send(t, http.MethodGet, url("http", first.Public, "/api/v1/webhook-endpoints"), tok, key, ""),
		http.MethodGet, "/api/v1/webhook-endpoints")
	// A key the services refuse (over 128 characters) binds nothing: each
	// service answers its 422.
	long := strings.Repeat("k", 129)
	wantForwarded(t, "long key, first service", send(t, http.MethodPost, url("http", first.Public, "/api/v1/contacts"), tok, long, `{}`),
		http.MethodPost, "/api/v1/contacts")
	wantForwarded(t, "long key, second service", send(t, http.MethodPost, url("http", second.Public, "/api/v1/webhook-endpoints"), tok, long, `{}`),
		http.MethodPost, "/api/v1/webhook-endpoints")
}

// Without Redis one replica holds the bindings in memory.
func TestIdempotencyKeyScopeInMemory(t *testing.T) {
	t.Parallel()
	w := newKeyWorld(t)
	a := start(t, w.config())
	tok := bearer(w.identity.Issue(t, token(1)))
	wantForwarded(t, "first use", send(t, http.MethodPost, url("http", a.Public, "/api/v1/webhook-endpoints"), tok, "K1", `{}`),
		http.MethodPost, "/api/v1/webhook-endpoints")
	wantError(t, send(t, http.MethodPut, url("http", a.Public, "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N"), tok, "K1", `{}`),
		http.StatusConflict, "idempotency_conflict")
	wantForwarded(t, "another key", send(t, http.MethodPost, url("http", a.Public, "/api/v1/contacts"), tok, "K2", `{}`),
		http.MethodPost, "/api/v1/contacts")
}

// A Redis that cannot answer lets keyed requests through (the services still
// guard their own keys), like the rate limiter.
func TestIdempotencyKeyScopeFailsOpenWithoutRedis(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "redis://" + ln.Addr().String()
	ln.Close() // nothing listens there any more
	w := newKeyWorld(t)
	cfg := w.config()
	cfg.RedisURL = dead
	a := start(t, cfg)
	tok := bearer(w.identity.Issue(t, token(1)))
	wantForwarded(t, "first service", send(t, http.MethodPost, url("http", a.Public, "/api/v1/contacts"), tok, "K1", `{}`),
		http.MethodPost, "/api/v1/contacts")
	wantForwarded(t, "second service", send(t, http.MethodPost, url("http", a.Public, "/api/v1/webhook-endpoints"), tok, "K1", `{}`),
		http.MethodPost, "/api/v1/webhook-endpoints")
}
