package tokens

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

const goodToken = "pl_12|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"

// fakeIdentity answers introspections from a table and counts the calls.
type fakeIdentity struct {
	mu     sync.Mutex
	calls  int
	answer map[string]*client.Introspection
	err    error
	before func() // runs inside Introspect, before the answer is read
}

func (f *fakeIdentity) Introspect(_ context.Context, token, _ string) (*client.Introspection, error) {
	if f.before != nil {
		f.before()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	if a, ok := f.answer[token]; ok {
		return a, nil
	}
	return nil, client.ErrInvalidToken
}

func (f *fakeIdentity) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// clock is a manual clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func setup(t *testing.T, ttl time.Duration) (*Resolver, *fakeIdentity, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)}
	f := &fakeIdentity{answer: map[string]*client.Introspection{
		goodToken: {TenantID: "T1", TokenID: 12, InternalToken: "jwt", InternalTokenExpiresAt: clk.Now().Add(time.Minute)},
	}}
	return NewResolver(f, Options{TTL: ttl, Now: clk.Now}), f, clk
}

func TestResolveCachesPositiveAnswers(t *testing.T) {
	t.Parallel()
	r, f, clk := setup(t, 5*time.Second)
	ctx := context.Background()
	for range 3 {
		got, err := r.Resolve(ctx, goodToken, "")
		if err != nil || got.TokenID != 12 || got.Authorization != "Bearer jwt" {
			t.Fatalf("Resolve = %+v, %v; want token 12 forwarded as Bearer jwt", got, err)
		}
	}
	if f.count() != 1 {
		t.Fatalf("introspections = %d, want 1 (cached)", f.count())
	}
	clk.Advance(5 * time.Second)
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 {
		t.Errorf("introspections after TTL = %d, want 2", f.count())
	}
}

func TestResolveNeverCachesPastInternalTokenExpiry(t *testing.T) {
	t.Parallel()
	r, f, clk := setup(t, time.Hour)
	ctx := context.Background()
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil {
		t.Fatal(err)
	}
	clk.Advance(49 * time.Second) // the JWT expires at +60 s, the margin is 10 s
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil || f.count() != 1 {
		t.Fatalf("at +49 s: err %v, introspections %d; want cached", err, f.count())
	}
	clk.Advance(time.Second)
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil || f.count() != 2 {
		t.Errorf("at +50 s: err %v, introspections %d; want a new introspection", err, f.count())
	}
}

func TestResolveRefusals(t *testing.T) {
	t.Parallel()
	r, f, clk := setup(t, 5*time.Second)
	ctx := context.Background()
	for _, tok := range []string{"", "Bearer x", "pl_|abc", "pl_012|abc", "pl_12|", "pl_12|ab-c", "pk_12|abc", "pl_1x|abc"} {
		if _, err := r.Resolve(ctx, tok, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("Resolve(%q) = %v, want ErrInvalid", tok, err)
		}
	}
	if f.count() != 0 {
		t.Fatalf("malformed tokens reached identity-svc %d times", f.count())
	}
	unknown := "pl_99|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	for range 2 {
		if _, err := r.Resolve(ctx, unknown, ""); !errors.Is(err, ErrInvalid) {
			t.Fatalf("unknown token: %v, want ErrInvalid", err)
		}
	}
	if f.count() != 1 {
		t.Fatalf("introspections = %d, want 1 (negative answer cached briefly)", f.count())
	}
	clk.Advance(time.Second)
	if _, err := r.Resolve(ctx, unknown, ""); !errors.Is(err, ErrInvalid) || f.count() != 2 {
		t.Errorf("after 1 s: %v, introspections %d; want a new introspection", err, f.count())
	}
}

func TestResolveUnavailableOpensBreaker(t *testing.T) {
	t.Parallel()
	r, f, _ := setup(t, 5*time.Second)
	f.err = errors.New("connection refused")
	for range 8 {
		if _, err := r.Resolve(context.Background(), goodToken, ""); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Resolve = %v, want ErrUnavailable", err)
		}
	}
	if f.count() != 5 {
		t.Errorf("introspections = %d, want 5 (breaker open after 5 failures)", f.count())
	}
}

func TestEvict(t *testing.T) {
	t.Parallel()
	r, f, _ := setup(t, time.Minute)
	ctx := context.Background()
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil {
		t.Fatal(err)
	}
	delete(f.answer, goodToken) // revoked in identity-svc
	if _, err := r.Resolve(ctx, goodToken, ""); err != nil {
		t.Fatalf("before eviction: %v, want the cached answer", err)
	}
	if n := r.Evict(12); n != 1 {
		t.Errorf("Evict = %d, want 1", n)
	}
	if _, err := r.Resolve(ctx, goodToken, ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("after eviction: %v, want ErrInvalid", err)
	}
}

func TestEvictDuringLookupIsNotUndone(t *testing.T) {
	t.Parallel()
	r, f, _ := setup(t, time.Minute)
	// The revocation arrives while identity-svc is still answering with the
	// old, positive answer.
	f.before = func() { r.Evict(12) }
	if _, err := r.Resolve(context.Background(), goodToken, ""); err != nil {
		t.Fatal(err)
	}
	if r.cache.size() != 0 {
		t.Errorf("cache holds %d entries, want 0: a revoked token was cached", r.cache.size())
	}
}

func TestBearer(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Bearer pl_1|abc": "pl_1|abc",
		"bearer pl_1|abc": "pl_1|abc",
		"Basic abc":       "",
		"Bearer":          "",
		"Bearer ":         "",
		"":                "",
	}
	for h, want := range tests {
		got, ok := Bearer(h)
		if got != want || ok != (want != "") {
			t.Errorf("Bearer(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

// TestIdentityRefusalsNeverOpenTheBreaker: identity-svc answering a 4xx
// (other than the 401 of a refused token) answers the request, it is not
// down: the breaker stays closed and other tokens are still introspected.
func TestIdentityRefusalsNeverOpenTheBreaker(t *testing.T) {
	t.Parallel()
	r, f, _ := setup(t, 5*time.Second)
	f.mu.Lock()
	f.err = &client.Error{Status: 429, Code: "rate_limited"}
	f.mu.Unlock()
	for i := range 8 {
		tok := "pl_13|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST" + string(rune('a'+i)) + "V"
		if _, err := r.Resolve(context.Background(), tok, ""); err == nil {
			t.Fatal("Resolve succeeded on a refusal")
		}
	}
	f.mu.Lock()
	f.err = nil
	f.mu.Unlock()
	if _, err := r.Resolve(context.Background(), goodToken, ""); err != nil {
		t.Errorf("Resolve after identity's refusals = %v, want the token resolved (breaker closed)", err)
	}
}
