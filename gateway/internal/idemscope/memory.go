package idemscope

import (
	"context"
	"sync"
	"time"
)

// DefaultMaxEntries bounds the in-memory store.
const DefaultMaxEntries = 100_000

type entry struct {
	owner   string
	expires time.Time
}

type queued struct {
	scope   string
	expires time.Time
}

// memoryStore keeps bindings in a map; since every binding lives TTL, the
// order of insertion is the order of expiry, and a queue in that order
// prunes the expired ones from its head.
type memoryStore struct {
	now func() time.Time
	max int

	mu      sync.Mutex
	entries map[string]entry
	order   []queued
}

// NewMemory returns a Store in this process's memory, for a single gateway
// replica, holding at most maxEntries bindings (DefaultMaxEntries when not
// positive): past that the oldest binding is dropped, which only narrows
// the check back to the services' own records for that key.
func NewMemory(now func() time.Time, maxEntries int) Store {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	return &memoryStore{now: now, max: maxEntries, entries: map[string]entry{}}
}

// Bind implements Store.
func (s *memoryStore) Bind(_ context.Context, scope, owner string) (string, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	if e, ok := s.entries[scope]; ok && now.Before(e.expires) {
		return e.owner, nil
	}
	for len(s.entries) >= s.max && len(s.order) > 0 {
		s.dropOldest()
	}
	expires := now.Add(TTL)
	s.entries[scope] = entry{owner: owner, expires: expires}
	s.order = append(s.order, queued{scope: scope, expires: expires})
	return owner, nil
}

// prune drops the expired bindings at the head of the queue.
func (s *memoryStore) prune(now time.Time) {
	for len(s.order) > 0 && !now.Before(s.order[0].expires) {
		s.dropOldest()
	}
	if len(s.order) == 0 {
		s.order = nil // let the backing array go
	}
}

func (s *memoryStore) dropOldest() {
	q := s.order[0]
	s.order = s.order[1:]
	if e, ok := s.entries[q.scope]; ok && e.expires.Equal(q.expires) {
		delete(s.entries, q.scope)
	}
}
