package peers

import (
	"container/list"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/events"
)

// Source answers a contact's opt-in standing (Remote, or anything else
// with app.OptIns' method).
type Source interface {
	OptIn(ctx context.Context, tenantID string, c contact.Contact) (contact.OptIn, error)
}

// Cache keeps Source's answers per (tenant, contact id, phone) for a short
// TTL, at most a fixed number of them (least recently read out first), so
// a busy single read does not ask optin-svc every time. optin-svc's events
// evict what they change as soon as they arrive (Invalidate); the TTL
// bounds staleness for the changes no event announces (a pending
// double-opt-in consent) and for events missed while the follower is not
// reading. Errors are never cached.
//
// An answer may therefore be stale until the event arrives or the TTL
// passes (docs/decisions.md).
type Cache struct {
	src Source
	ttl time.Duration
	max int
	now func() time.Time

	mu       sync.Mutex
	entries  map[cacheKey]*list.Element // of *cacheEntry
	lru      *list.List                 // most recently read first
	byTenant map[string]map[*cacheEntry]struct{}
	// epoch counts invalidations. An answer fetched across one is not
	// stored: it may predate the change the event announced.
	epoch uint64
}

// cacheKey names one answer. The tenant is part of it: the same contact id
// in two tenants never shares an entry.
type cacheKey struct {
	tenant, contactID, phone string
}

type cacheEntry struct {
	key     cacheKey
	answer  contact.OptIn
	expires time.Time
}

// NewCache returns a cache of src's answers, each kept at most ttl (> 0),
// at most size (> 0) of them.
func NewCache(src Source, ttl time.Duration, size int) *Cache {
	return &Cache{
		src: src, ttl: ttl, max: max(size, 1), now: time.Now,
		entries: map[cacheKey]*list.Element{}, lru: list.New(), byTenant: map[string]map[*cacheEntry]struct{}{},
	}
}

// OptIn implements app.OptIns: a fresh cached answer, else Source's
// (stored unless it failed or an invalidation came meanwhile).
func (c *Cache) OptIn(ctx context.Context, tenantID string, ct contact.Contact) (contact.OptIn, error) {
	k := cacheKey{tenant: tenantID, contactID: ct.ID, phone: ct.Phone}
	now := c.now()
	c.mu.Lock()
	if el, ok := c.entries[k]; ok {
		e := el.Value.(*cacheEntry)
		if now.Before(e.expires) {
			c.lru.MoveToFront(el)
			answer := e.answer
			c.mu.Unlock()
			// The caller gets its own slice; the cached one stays as fetched.
			answer.Consents = slices.Clone(answer.Consents)
			return answer, nil
		}
		c.remove(el)
	}
	epoch := c.epoch
	c.mu.Unlock()

	answer, err := c.src.OptIn(ctx, tenantID, ct)
	if err != nil {
		return contact.OptIn{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch == epoch {
		// Expiry counts from before the fetch: never later than ttl after
		// the moment optin-svc may have read it.
		c.store(&cacheEntry{key: k, answer: answer, expires: now.Add(c.ttl)})
	}
	answer.Consents = slices.Clone(answer.Consents)
	return answer, nil
}

// store adds e, replacing an entry of its key, and drops the least
// recently read entries beyond the bound. c.mu is held.
func (c *Cache) store(e *cacheEntry) {
	if el, ok := c.entries[e.key]; ok {
		c.remove(el)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	set := c.byTenant[e.key.tenant]
	if set == nil {
		set = map[*cacheEntry]struct{}{}
		c.byTenant[e.key.tenant] = set
	}
	set[e] = struct{}{}
	for c.lru.Len() > c.max {
		c.remove(c.lru.Back())
	}
}

// remove drops an entry. c.mu is held.
func (c *Cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	if set := c.byTenant[e.key.tenant]; set != nil {
		delete(set, e)
		if len(set) == 0 {
			delete(c.byTenant, e.key.tenant)
		}
	}
}

// Len is the number of answers held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Invalidate evicts the answers an event of optin-svc may have changed
// (the handler events.Follow calls; its error is always nil, so it never
// holds the follower up):
//   - opt_in.confirmed, opt_in.revoked, consent.requested (internal: a
//     pending double opt-in consent): the consent's contact, and every
//     answer that lists the consent (it may have reached another contact
//     through its number);
//   - suppression.created, suppression.deleted: every answer of the tenant
//     whose number ends in the entry's last four digits (the event carries
//     no more of the number).
//
// An event it cannot read evicts every answer of its tenant. Other event
// types change no standing and are ignored.
func (c *Cache) Invalidate(_ context.Context, env events.Envelope) error {
	var match func(*cacheEntry) bool
	switch env.Type {
	case events.TypeOptInConfirmed, events.TypeOptInRevoked, events.TypeConsentRequested:
		var data events.OptIn
		if env.Decode(&data) == nil && data.ID != "" && data.ContactID != "" {
			match = func(e *cacheEntry) bool { return e.key.contactID == data.ContactID || lists(e.answer, data.ID) }
		}
	case events.TypeSuppressionCreated, events.TypeSuppressionDeleted:
		var data events.Suppression
		if env.Decode(&data) == nil && data.PhoneLast4 != "" {
			match = func(e *cacheEntry) bool { return strings.HasSuffix(e.key.phone, data.PhoneLast4) }
		}
	default:
		return nil
	}
	if match == nil {
		match = func(*cacheEntry) bool { return true }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	// Scanning the tenant's answers is fine: events are rare next to reads.
	for e := range c.byTenant[env.TenantID] {
		if match(e) {
			c.remove(c.entries[e.key])
		}
	}
	return nil
}

// lists reports whether the answer shows the consent.
func lists(o contact.OptIn, consentID string) bool {
	return slices.ContainsFunc(o.Consents, func(k contact.Consent) bool { return k.ID == consentID })
}
