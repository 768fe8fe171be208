package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// NewContact is the contact object of a batch item: found by ExternalID,
// else created from the other fields (always created without ExternalID).
type NewContact struct {
	ExternalID, FirstName, LastName, Phone, Email string
}

// ContactItem is the contact of batch row Index.
type ContactItem struct {
	Index   int
	Contact NewContact
}

// ContactBatch asks contacts-svc for the contacts of rows of a batch. Each
// row is recorded there under (BatchID, Index), so asking again for a row
// answers the contact it got the first time. Region reads national phone
// formats; EmitEvents writes contact.created for new contacts.
type ContactBatch struct {
	BatchID    string
	Region     string
	EmitEvents bool
	Items      []ContactItem
}

// ContactAnswer is the contact of batch row Index, or the problems (per
// field of the contact object: phone, external_id, ...) that kept it from
// being created.
type ContactAnswer struct {
	Index   int
	Contact Contact
	Errors  map[string][]string
}

// contactAnswer is a row's contact, or its problems named as the row's
// fields (contact.phone, contact_id).
type contactAnswer struct {
	contact Contact
	errors  map[string][]string
}

// resolveContacts finds or creates the contacts of rows: contact objects in
// one ContactBatch, contact_id references one lookup per distinct id.
func (a *App) resolveContacts(ctx context.Context, scope Scope, req BulkRequest, rows []validRow) (map[int]contactAnswer, error) {
	out := make(map[int]contactAnswer, len(rows))
	b := ContactBatch{BatchID: req.BatchID, Region: scope.Region, EmitEvents: req.EmitEvents}
	byID := map[string]contactAnswer{}
	for _, r := range rows {
		if r.contact != nil {
			b.Items = append(b.Items, ContactItem{Index: r.index, Contact: *r.contact})
			continue
		}
		id := *r.in.ContactID
		ans, ok := byID[id]
		if !ok {
			c, err := a.contacts.Resolve(ctx, scope.Token, ContactRef{ID: id})
			switch {
			case err == nil:
				ans.contact = c
			case errors.Is(err, txn.ErrContactNotFound):
				ans.errors = map[string][]string{"contact_id": {"The selected contact_id is invalid: no live contact has it."}}
			default:
				return nil, err
			}
			byID[id] = ans
		}
		out[r.index] = ans
	}
	if len(b.Items) == 0 {
		return out, nil
	}
	answers, err := a.contacts.FindOrCreateMany(ctx, scope.Token, b)
	if err != nil {
		return nil, err
	}
	for _, ans := range answers {
		out[ans.Index] = contactAnswer{contact: ans.Contact, errors: prefixed("contact.", ans.Errors)}
	}
	for _, r := range rows {
		if _, ok := out[r.index]; !ok {
			return nil, fmt.Errorf("contacts-svc answered no contact for row %d", r.index)
		}
	}
	return out, nil
}

// prefixed returns errs with prefix before every field name, or nil.
func prefixed(prefix string, errs map[string][]string) map[string][]string {
	if len(errs) == 0 {
		return nil
	}
	out := make(map[string][]string, len(errs))
	for f, msgs := range errs {
		out[prefix+f] = msgs
	}
	return out
}
