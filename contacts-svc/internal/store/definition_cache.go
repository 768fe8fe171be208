package store

import (
	"sync"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/tenancy"
)

const (
	// definitionTTL is how long a tenant's field definitions are validated
	// from memory: how long another replica's definition write may go
	// unnoticed here. This replica's own writes take effect at once.
	definitionTTL = 5 * time.Second
	// maxCachedTenants bounds the cache; a full cache starts over.
	maxCachedTenants = 10_000
)

// definitionCache keeps each tenant's field definitions (read on every
// contact write) for a while. A definition write invalidates its tenant when
// it is made and again once it commits; the generation keeps a read that
// raced such a write from caching what it read.
type definitionCache struct {
	ttl        time.Duration
	mu         sync.Mutex
	generation uint64
	entries    map[string]cachedDefinitions
}

type cachedDefinitions struct {
	defs    contact.Definitions
	expires time.Time
}

func newDefinitionCache(ttl time.Duration) *definitionCache {
	return &definitionCache{ttl: ttl, entries: map[string]cachedDefinitions{}}
}

// get returns the tenant's cached definitions, or the generation to pass to
// put with the definitions read instead.
func (c *definitionCache) get(tenantID string) (contact.Definitions, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[tenantID]
	if ok && time.Now().Before(e.expires) {
		return e.defs, 0, true
	}
	return contact.Definitions{}, c.generation, false
}

// put caches defs read since get returned generation, unless a definition
// write was made meanwhile.
func (c *definitionCache) put(tenantID string, defs contact.Definitions, generation uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if generation != c.generation {
		return
	}
	if len(c.entries) >= maxCachedTenants {
		clear(c.entries)
	}
	c.entries[tenantID] = cachedDefinitions{defs: defs, expires: time.Now().Add(c.ttl)}
}

// invalidate forgets the tenant's definitions.
func (c *definitionCache) invalidate(tenantID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	delete(c.entries, tenantID)
}

// definitionsChanged is called by every definition write of the
// transaction: the tenant's cached definitions go now, so that no read
// caches them while the write is uncommitted, and again after the commit.
func (t *Tx) definitionsChanged() {
	t.wroteDefinitions = true
	c, tenantID := t.store.definitions, t.tenantID
	c.invalidate(tenantID)
	tenancy.OnCommit(t.tx, func() { c.invalidate(tenantID) })
}
