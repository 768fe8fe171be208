package clienttest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/phone"
)

// Messages of contacts-svc that callers may show or match.
const (
	MsgPhoneRequired   = "The phone field is required."
	MsgPhoneInvalid    = "The phone field must be a valid phone number."
	MsgPhoneTaken      = "The phone has already been taken."
	MsgExternalIDTaken = "The external id has already been taken."
	// MsgPhoneFilterInvalid refuses the phone filter of the list.
	MsgPhoneFilterInvalid = "The phone filter must be a valid phone number."
)

// tenant is one tenant's data.
type tenant struct {
	contacts []*client.Contact
	phones   map[string]client.PhoneRecord // E.164 → record
	rows     map[string]client.RowResult   // batch id / row index → outcome
}

// tenantLocked returns id's data, made on first use.
func (f *Contacts) tenantLocked(id string) *tenant {
	t, ok := f.tenants[id]
	if !ok {
		t = &tenant{phones: map[string]client.PhoneRecord{}, rows: map[string]client.RowResult{}}
		f.tenants[id] = t
	}
	return t
}

// now is the time the fake stamps on what it writes.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// Add stores a live contact of tenant and returns it: the test's own
// setup, so contacts-svc's checks do not apply (a phone is normalised to
// E.164 when it can be, else kept as given; externalID and firstName may be
// empty).
func (f *Contacts) Add(tenantID, externalID, firstName, phoneNumber string) client.Contact {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tenantLocked(tenantID)
	e164, err := phone.Normalize(phoneNumber, "US")
	if err != nil {
		e164 = phoneNumber
	}
	at := now()
	c := &client.Contact{ID: ids.New(), Phone: e164, PhoneID: t.phoneRecordLocked(e164, at).ID,
		CustomFields: map[string]json.RawMessage{}, CreatedAt: at, UpdatedAt: at}
	apply(c, client.ContactInput{ExternalID: externalID, FirstName: firstName})
	t.contacts = append(t.contacts, c)
	return *c
}

// Delete soft-deletes a contact of tenant, as DELETE /api/v1/contacts/{id}
// does; it reports whether a live one was found.
func (f *Contacts) Delete(tenantID, id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.tenantLocked(tenantID).contacts {
		if c.ID == id && c.Live() {
			at := now()
			c.DeletedAt, c.UpdatedAt = &at, at
			return true
		}
	}
	return false
}

// Contacts returns tenant's contacts, live and deleted, oldest first.
func (f *Contacts) Contacts(tenantID string) []client.Contact {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []client.Contact
	for _, c := range f.tenantLocked(tenantID).contacts {
		out = append(out, *c)
	}
	return out
}

// findLocked returns the live contact with externalID, or nil.
func (t *tenant) findLocked(externalID string) *client.Contact {
	for _, c := range t.contacts {
		if c.Live() && c.ExternalID != nil && *c.ExternalID == externalID {
			return c
		}
	}
	return nil
}

// phoneProblems normalises in.Phone and checks it against the live
// contacts other than self.
func (t *tenant) phoneProblems(region, raw string, self *client.Contact) (string, map[string][]string) {
	if strings.TrimSpace(raw) == "" {
		return "", map[string][]string{"phone": {MsgPhoneRequired}}
	}
	e164, err := phone.Normalize(raw, region)
	if err != nil {
		return "", map[string][]string{"phone": {MsgPhoneInvalid}}
	}
	for _, c := range t.contacts {
		if c != self && c.Live() && c.Phone == e164 {
			return "", map[string][]string{"phone": {MsgPhoneTaken}}
		}
	}
	return e164, nil
}

// createLocked validates in and creates a live contact.
func (f *Contacts) createLocked(tenantID, region string, in client.ContactInput) (*client.Contact, map[string][]string) {
	t := f.tenantLocked(tenantID)
	e164, problems := t.phoneProblems(region, in.Phone, nil)
	if problems != nil {
		return nil, problems
	}
	at := now()
	c := &client.Contact{ID: ids.New(), Phone: e164, PhoneID: t.phoneRecordLocked(e164, at).ID,
		CustomFields: map[string]json.RawMessage{}, CreatedAt: at, UpdatedAt: at}
	apply(c, in)
	t.contacts = append(t.contacts, c)
	return c, nil
}

// updateLocked replaces c's fields from in (a bulk upsert's update).
func (f *Contacts) updateLocked(tenantID, region string, c *client.Contact, in client.ContactInput) map[string][]string {
	t := f.tenantLocked(tenantID)
	e164, problems := t.phoneProblems(region, in.Phone, c)
	if problems != nil {
		return problems
	}
	c.Phone, c.PhoneID, c.UpdatedAt = e164, t.phoneRecordLocked(e164, now()).ID, now()
	apply(c, in)
	return nil
}

// phoneRecordLocked returns the tenant's record of e164, made on first use.
func (t *tenant) phoneRecordLocked(e164 string, at time.Time) client.PhoneRecord {
	rec, ok := t.phones[e164]
	if !ok {
		rec = client.PhoneRecord{ID: ids.New(), Phone: e164, CreatedAt: at}
		t.phones[e164] = rec
	}
	return rec
}

// apply sets the optional fields of in on c (empty strings leave a field
// unset, as the client leaves them out).
func apply(c *client.Contact, in client.ContactInput) {
	set := func(dst **string, v string) {
		if v = strings.TrimSpace(v); v != "" {
			*dst = &v
		}
	}
	set(&c.ExternalID, in.ExternalID)
	set(&c.FirstName, in.FirstName)
	set(&c.LastName, in.LastName)
	set(&c.Email, in.Email)
	for k, v := range in.CustomFields {
		raw, _ := json.Marshal(v)
		c.CustomFields[k] = raw
	}
}
