package ratelimit

import (
	"context"
	"sync"
	"time"
)

// sweepInterval is how often, at most, Allow drops idle keys.
const sweepInterval = time.Minute

// memory is a GCRA limiter in process memory: per key it keeps only the
// theoretical arrival time (TAT) of the next request.
type memory struct {
	now func() time.Time

	mu        sync.Mutex
	tats      map[string]time.Time
	lastSweep time.Time
}

// NewMemory returns a GCRA limiter kept in memory, with now as its clock
// (nil means time.Now). Keys whose allowance has fully refilled are idle:
// they are dropped lazily, by a sweep that Allow runs at most once a
// minute, so memory follows the active keys without a background goroutine.
// Its counts are per process: right for a single gateway replica only.
func NewMemory(now func() time.Time) Limiter {
	if now == nil {
		now = time.Now
	}
	return &memory{now: now, tats: map[string]time.Time{}}
}

// Allow implements Limiter.
func (m *memory) Allow(_ context.Context, key string, perMinute int) (Result, error) {
	if err := checkLimit(perMinute); err != nil {
		return Result{}, err
	}
	interval := time.Minute / time.Duration(perMinute)
	tolerance := interval * time.Duration(perMinute) // burst: the whole minute's allowance
	now := m.now()

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	tat := m.tats[key]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	if allowAt := next.Add(-tolerance); now.Before(allowAt) {
		return Result{Allowed: false, Limit: perMinute, Remaining: 0, RetryAfter: allowAt.Sub(now)}, nil
	}
	m.tats[key] = next
	remaining := int((tolerance - next.Sub(now)) / interval)
	return Result{Allowed: true, Limit: perMinute, Remaining: remaining}, nil
}

// sweep drops keys whose TAT has passed (a key absent and a key fully
// refilled behave the same). Callers hold mu.
func (m *memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepInterval {
		return
	}
	m.lastSweep = now
	for k, tat := range m.tats {
		if !tat.After(now) {
			delete(m.tats, k)
		}
	}
}
