// Package ratelimit holds the per-key request limiters of the gateway and
// the batch service: a GCRA limiter in memory (one replica) and one on Redis
// (shared by every replica). Both allow a burst of the whole per-minute
// allowance and refill it evenly over the minute.
package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Result is the outcome of one Allow call.
type Result struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Limit is the per-minute limit applied (X-RateLimit-Limit).
	Limit int
	// Remaining is how many more requests the key may make right now
	// (X-RateLimit-Remaining).
	Remaining int
	// RetryAfter is, for a refused request, how long until the next one
	// is allowed; 0 when allowed.
	RetryAfter time.Duration
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1
// for a refused request, as the Retry-After header wants it.
func (r Result) RetryAfterSeconds() int {
	if r.Allowed {
		return 0
	}
	return max(1, int((r.RetryAfter+time.Second-1)/time.Second))
}

// Limiter decides whether the request identified by key is within
// perMinute requests per minute, and counts it when it is.
type Limiter interface {
	Allow(ctx context.Context, key string, perMinute int) (Result, error)
}

func checkLimit(perMinute int) error {
	if perMinute <= 0 {
		return fmt.Errorf("per-minute limit must be positive, got %d", perMinute)
	}
	return nil
}
