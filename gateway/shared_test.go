package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
)

// Two replicas sharing Redis share each token's budget.
func TestRedisLimiterIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	cfg.RedisURL = testkit.Redis(t)
	cfg.TokenPerMinute = 3
	cfg.IPPerMinute = 2
	first, second := start(t, cfg), start(t, cfg)
	tok := w.identity.Issue(t, token(1))
	c := http.DefaultClient
	doc := func(addr string) answer {
		return call(t, c, http.MethodGet, url("http", addr, "/api/v1/openapi.json"), bearer(tok))
	}
	for i, addr := range []string{first.Public, second.Public, first.Public} {
		got := doc(addr)
		if got.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, got.status)
		}
		if r := got.header.Get("X-RateLimit-Remaining"); r != strconv.Itoa(2-i) {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %d", i+1, r, 2-i)
		}
	}
	got := doc(second.Public)
	wantError(t, got, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(got.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want whole seconds >= 1", got.header.Get("Retry-After"))
	}
	if got.header.Get("X-RateLimit-Limit") != "3" || got.header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("X-RateLimit-Limit %q Remaining %q, want 3 and 0", got.header.Get("X-RateLimit-Limit"), got.header.Get("X-RateLimit-Remaining"))
	}
	// The per-IP budget is shared too.
	health := func(addr string) answer {
		return call(t, c, http.MethodGet, url("http", addr, "/api/v1/healthcheck/app"), "")
	}
	if health(first.Public).status != http.StatusOK || health(second.Public).status != http.StatusOK {
		t.Fatal("health probes within the IP budget refused")
	}
	wantError(t, health(first.Public), http.StatusTooManyRequests, "rate_limited")
}

// A token.revoked event evicts the cached answer at once, long before the
// cache entry would expire.
func TestRevocationEventEvictsCachedToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	brokers := testkit.Broker(t)
	cfg := w.config()
	cfg.KafkaBrokers = brokers
	cfg.TokenCacheTTL = time.Hour // the internal JWT's expiry (60 s) bounds it to 50 s
	a := start(t, cfg)
	tok := w.identity.Issue(t, token(42))
	other := w.identity.Issue(t, token(43))
	doc := func(tk string) answer {
		return call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/openapi.json"), bearer(tk))
	}
	for _, tk := range []string{tok, other} {
		if got := doc(tk); got.status != http.StatusOK {
			t.Fatalf("before revocation: %d", got.status)
		}
	}
	w.identity.Revoke(tok)
	if got := doc(tok); got.status != http.StatusOK {
		t.Fatalf("revoked in identity, no event yet: %d, want the cached 200", got.status)
	}
	publishRevoked(t, brokers, 42)
	deadline := time.Now().Add(30 * time.Second) // a bound on the broker's delivery, not a latency check
	for {
		got := doc(tok)
		if got.status == http.StatusUnauthorized {
			wantError(t, got, http.StatusUnauthorized, "unauthenticated")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("token still accepted (%d) after the token.revoked event", got.status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := doc(other); got.status != http.StatusOK {
		t.Errorf("another token of the tenant: %d, want 200 (only the revoked token is evicted)", got.status)
	}
}

func publishRevoked(t *testing.T, brokers []string, tokenID int64) {
	t.Helper()
	env, err := events.New(events.TypeTokenRevoked, "TENANT1", "", events.TokenRevoked{TokenID: tokenID, TenantID: "TENANT1"})
	if err != nil {
		t.Fatal(err)
	}
	value, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	wr := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: events.TopicIdentity, RequiredAcks: kafka.RequireAll}
	defer wr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wr.WriteMessages(ctx, kafka.Message{Key: []byte("TENANT1"), Value: value}); err != nil {
		t.Fatalf("publishing token.revoked: %v", err)
	}
}
