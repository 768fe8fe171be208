package store

import "sync"

// maxPhoneIDs bounds phoneIDs; a full memory starts over.
const maxPhoneIDs = 100_000

// phoneIDs remembers the record id of numbers this process has seen, per
// tenant. A phone record is never deleted and its id never changes, so a
// remembered id stays right; the one-shot insert (InsertNewContact) uses it
// as its assumption, and a number it has not seen is assumed new.
type phoneIDs struct {
	mu  sync.Mutex
	ids map[phoneKey]string
}

type phoneKey struct{ tenantID, e164 string }

func newPhoneIDs() *phoneIDs { return &phoneIDs{ids: map[phoneKey]string{}} }

func (p *phoneIDs) get(tenantID, e164 string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.ids[phoneKey{tenantID, e164}]
	return id, ok
}

func (p *phoneIDs) put(tenantID, e164, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) >= maxPhoneIDs {
		clear(p.ids)
	}
	p.ids[phoneKey{tenantID, e164}] = id
}
