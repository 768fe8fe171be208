package tokens

import (
	"sync"
	"time"
)

// revocationMemory is how long an eviction is remembered, so that an
// introspection that was already in flight when the token was revoked does
// not put the token back (lookups take at most a few seconds).
const revocationMemory = time.Minute

// Key is the SHA-256 of a presented token: the cache never holds a token.
type Key [32]byte

// cache holds introspection answers by token hash until they expire; a nil
// answer is a negative entry (the token was refused).
type cache struct {
	mu        sync.Mutex
	entries   map[Key]entry
	byTokenID map[int64]map[Key]struct{}
	revoked   map[int64]time.Time // token id → when its eviction was seen
	nextSweep time.Time
	sweepEach time.Duration
}

type entry struct {
	resolved *Resolved
	expires  time.Time
}

func newCache(sweepEach time.Duration) *cache {
	return &cache{
		entries:   map[Key]entry{},
		byTokenID: map[int64]map[Key]struct{}{},
		revoked:   map[int64]time.Time{},
		sweepEach: sweepEach,
	}
}

// get returns the live entry of key.
func (c *cache) get(key Key, now time.Time) (entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		return entry{}, false
	}
	return e, true
}

// put stores an answer until expires, unless the token was revoked after the
// lookup that produced the answer started.
func (c *cache) put(key Key, resolved *Resolved, expires, lookupStart, now time.Time) {
	if !now.Before(expires) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.After(c.nextSweep) {
		c.sweep(now)
	}
	if resolved != nil {
		if at, ok := c.revoked[resolved.TokenID]; ok && !at.Before(lookupStart) {
			return
		}
		keys := c.byTokenID[resolved.TokenID]
		if keys == nil {
			keys = map[Key]struct{}{}
			c.byTokenID[resolved.TokenID] = keys
		}
		keys[key] = struct{}{}
	}
	c.entries[key] = entry{resolved: resolved, expires: expires}
}

// evict drops every entry of the token id and remembers the revocation.
func (c *cache) evict(tokenID int64, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.revoked[tokenID] = now
	keys := c.byTokenID[tokenID]
	for k := range keys {
		delete(c.entries, k)
	}
	delete(c.byTokenID, tokenID)
	return len(keys)
}

// sweep drops expired entries and old revocations; the caller holds mu.
func (c *cache) sweep(now time.Time) {
	for k, e := range c.entries {
		if now.Before(e.expires) {
			continue
		}
		delete(c.entries, k)
		if e.resolved != nil {
			if keys := c.byTokenID[e.resolved.TokenID]; keys != nil {
				delete(keys, k)
				if len(keys) == 0 {
					delete(c.byTokenID, e.resolved.TokenID)
				}
			}
		}
	}
	for id, at := range c.revoked {
		if now.Sub(at) > revocationMemory {
			delete(c.revoked, id)
		}
	}
	c.nextSweep = now.Add(c.sweepEach)
}

// size is the number of entries (for tests).
func (c *cache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
