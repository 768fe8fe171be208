package listtotal

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// MemoTTL is how long a Memo answers a list's estimated total without
// counting again.
const MemoTTL = 30 * time.Second

// maxMemo bounds a Memo's entries: past it, expired entries go first, then
// arbitrary ones.
const maxMemo = 10_000

// Memo remembers the estimated totals Count found (more rows than the cap),
// per tenant and list (the rows statement and its arguments), for MemoTTL:
// while one is remembered, the pages of that list skip the count of cap+1
// index entries and the planner's estimate, the two costs of a large
// tenant's list that its small tenants do not pay. An estimate stays an
// estimate for 30 s more; an exact total is never remembered, so a list of
// at most the cap rows is counted on every request. The zero value is
// ready; a store keeps one (never package state).
type Memo struct {
	// Now is the clock (time.Now when nil); tests set one.
	Now func() time.Time
	// Estimate estimates a list of more than the cap rows (Cap.CountWith);
	// the planner's Estimate when nil.
	Estimate Estimator

	mu sync.Mutex
	m  map[string]memoEntry
}

type memoEntry struct {
	total Total
	until time.Time
}

// Count is c.CountWith of tenant's list by m.Estimate, answered from the
// memo while an estimate of the same list is remembered. A nil memo
// remembers nothing.
func (m *Memo) Count(ctx context.Context, q Querier, c Cap, tenant, rows string, args ...any) (Total, error) {
	if m == nil {
		return c.Count(ctx, q, rows, args...)
	}
	key := tenant + "\x00" + strconv.Itoa(c.limit()) + "\x00" + rows + "\x00" + fmt.Sprint(args...)
	now := m.now()
	m.mu.Lock()
	e, ok := m.m[key]
	m.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.total, nil
	}
	estimate := m.Estimate
	if estimate == nil {
		estimate = Estimate
	}
	t, err := c.CountWith(ctx, q, estimate, rows, args...)
	if err != nil || !t.Estimated {
		if ok {
			m.mu.Lock()
			delete(m.m, key)
			m.mu.Unlock()
		}
		return t, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memoEntry{}
	}
	if len(m.m) >= maxMemo {
		for k, old := range m.m {
			if !now.Before(old.until) || len(m.m) >= maxMemo {
				delete(m.m, k)
			}
		}
	}
	m.m[key] = memoEntry{total: t, until: now.Add(MemoTTL)}
	return t, nil
}

func (m *Memo) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}
