package ratelimit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/ratelimit"
	"github.com/paylane/paylane/libs/testkit"
)

// fakeClock is the memory limiter's injectable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// impl builds limiters of one implementation. Limiters from one impl share
// state the way that implementation shares it (memory: one value; Redis:
// one server).
type impl struct {
	name string
	new  func() ratelimit.Limiter
}

func impls(t *testing.T) []impl {
	t.Helper()
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	mem := ratelimit.NewMemory(clk.Now)
	opts, err := redis.ParseURL(testkit.Redis(t))
	if err != nil {
		t.Fatal(err)
	}
	return []impl{
		{name: "memory", new: func() ratelimit.Limiter { return mem }},
		{name: "redis", new: func() ratelimit.Limiter {
			client := redis.NewClient(opts)
			t.Cleanup(func() { _ = client.Close() })
			return ratelimit.NewRedis(client)
		}},
	}
}

// uniqueKey keeps subtests apart on a shared limiter.
func uniqueKey(name string) string { return name + ":" + ids.New() }

type step struct {
	Allowed   bool
	Remaining int
}

func allow(t *testing.T, l ratelimit.Limiter, key string, perMinute int) ratelimit.Result {
	t.Helper()
	r, err := l.Allow(context.Background(), key, perMinute)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	if r.Limit != perMinute {
		t.Errorf("Limit = %d, want %d", r.Limit, perMinute)
	}
	return r
}

func TestLimiterBehaviour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T, newLimiter func() ratelimit.Limiter)
	}{
		{"fourth of three per minute is refused", func(t *testing.T, newLimiter func() ratelimit.Limiter) {
			l, key := newLimiter(), uniqueKey("token")
			var got []step
			for range 4 {
				r := allow(t, l, key, 3)
				got = append(got, step{r.Allowed, r.Remaining})
				if r.Allowed && r.RetryAfter != 0 {
					t.Errorf("allowed call has RetryAfter %s", r.RetryAfter)
				}
				if !r.Allowed && (r.RetryAfter <= 0 || r.RetryAfterSeconds() < 1) {
					t.Errorf("refused call has RetryAfter %s (%d s), want > 0", r.RetryAfter, r.RetryAfterSeconds())
				}
			}
			want := []step{{true, 2}, {true, 1}, {true, 0}, {false, 0}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		}},
		{"keys are independent", func(t *testing.T, newLimiter func() ratelimit.Limiter) {
			l, a, b := newLimiter(), uniqueKey("ip"), uniqueKey("ip")
			for range 3 {
				allow(t, l, a, 3)
			}
			if r := allow(t, l, a, 3); r.Allowed {
				t.Fatal("key a not exhausted after 3 calls")
			}
			if r := allow(t, l, b, 3); !r.Allowed || r.Remaining != 2 {
				t.Errorf("key b = %+v, want allowed with 2 remaining", r)
			}
		}},
		{"limiters sharing state share the count", func(t *testing.T, newLimiter func() ratelimit.Limiter) {
			replica1, replica2, key := newLimiter(), newLimiter(), uniqueKey("token")
			allow(t, replica1, key, 3)
			allow(t, replica2, key, 3)
			allow(t, replica1, key, 3)
			if r := allow(t, replica2, key, 3); r.Allowed {
				t.Errorf("fourth call across two limiters allowed: %+v", r)
			}
		}},
		{"non-positive limit is an error", func(t *testing.T, newLimiter func() ratelimit.Limiter) {
			for _, n := range []int{0, -1} {
				if _, err := newLimiter().Allow(context.Background(), uniqueKey("x"), n); err == nil {
					t.Errorf("Allow with limit %d: no error", n)
				}
			}
		}},
	}
	for _, im := range impls(t) {
		t.Run(im.name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.run(t, im.new)
				})
			}
		})
	}
}

func TestMemoryRefillsWithClock(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := ratelimit.NewMemory(clk.Now)
	for range 3 {
		allow(t, l, "k", 3)
	}
	refused := allow(t, l, "k", 3)
	if refused.Allowed || refused.RetryAfter != 20*time.Second {
		t.Fatalf("4th call = %+v, want refused with RetryAfter 20s (one emission interval)", refused)
	}
	clk.Advance(refused.RetryAfter - time.Millisecond)
	if r := allow(t, l, "k", 3); r.Allowed {
		t.Errorf("allowed before RetryAfter elapsed: %+v", r)
	}
	clk.Advance(time.Millisecond)
	if r := allow(t, l, "k", 3); !r.Allowed || r.Remaining != 0 {
		t.Errorf("after RetryAfter = %+v, want allowed with 0 remaining", r)
	}
	clk.Advance(time.Minute)
	if r := allow(t, l, "k", 3); !r.Allowed || r.Remaining != 2 {
		t.Errorf("after a full minute = %+v, want allowed with 2 remaining (full burst back)", r)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    ratelimit.Result
		want int
	}{
		{ratelimit.Result{Allowed: true}, 0},
		{ratelimit.Result{RetryAfter: 20 * time.Second}, 20},
		{ratelimit.Result{RetryAfter: 19*time.Second + time.Millisecond}, 20},
		{ratelimit.Result{RetryAfter: time.Millisecond}, 1},
		{ratelimit.Result{RetryAfter: 0}, 1},
	}
	for _, tt := range tests {
		if got := tt.r.RetryAfterSeconds(); got != tt.want {
			t.Errorf("%+v.RetryAfterSeconds() = %d, want %d", tt.r, got, tt.want)
		}
	}
}
