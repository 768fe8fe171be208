package testenv

import (
	"context"
	"fmt"
	"sync"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// Directory stands in for contacts-svc's phone records and contacts: per
// tenant, phone record ids to numbers and numbers to contact ids.
type Directory struct {
	mu sync.Mutex
	// down makes every call fail, as when contacts-svc is unreachable.
	down     bool
	phones   map[string]string // tenant + phone id → E.164
	contacts map[string]string // tenant + E.164 → contact id
}

// NewDirectory returns an empty directory.
func NewDirectory() *Directory {
	return &Directory{phones: map[string]string{}, contacts: map[string]string{}}
}

// SetDown makes every later call fail (true) or work again (false).
func (d *Directory) SetDown(down bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = down
}

// errDown is the failure of a directory that is down.
var errDown = fmt.Errorf("contacts-svc: %w", optin.ErrUnavailable)

// AddPhone records a phone record of the tenant and returns its id.
func (d *Directory) AddPhone(tenantID, e164 string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := ids.New()
	d.phones[tenantID+"/"+id] = e164
	return id
}

// ContactOf returns the contact id of a number, or "".
func (d *Directory) ContactOf(tenantID, e164 string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.contacts[tenantID+"/"+e164]
}

// PhoneNumber implements app.Contacts.
func (d *Directory) PhoneNumber(_ context.Context, tenantID, _, phoneID string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down {
		return "", errDown
	}
	e164, ok := d.phones[tenantID+"/"+phoneID]
	if !ok {
		return "", fmt.Errorf("phone %s: %w", phoneID, optin.ErrUnknownPhone)
	}
	return e164, nil
}

// FindOrCreateByPhone implements app.Contacts.
func (d *Directory) FindOrCreateByPhone(_ context.Context, tenantID, _, e164 string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down {
		return "", errDown
	}
	key := tenantID + "/" + e164
	if id, ok := d.contacts[key]; ok {
		return id, nil
	}
	id := ids.New()
	d.contacts[key] = id
	return id, nil
}
