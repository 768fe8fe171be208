package app

import (
	"context"
	"strings"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/phone"
)

// ListQuery filters a list of contacts. Phone is read like a contact's
// phone (national formats in the tenant's region) and matched in E.164.
type ListQuery struct {
	Phone       string
	ExternalID  string
	WithTrashed bool
	Page        Page
}

// ListContacts returns a page of contacts, newest first, and the total
// (exact up to a cap, estimated above it: listtotal).
func (a *App) ListContacts(ctx context.Context, scope Scope, q ListQuery) ([]contact.Contact, listtotal.Total, error) {
	f := store.Filter{ExternalID: strings.TrimSpace(q.ExternalID), WithTrashed: q.WithTrashed}
	if p := strings.TrimSpace(q.Phone); p != "" {
		e164, err := phone.Normalize(p, scope.Region)
		if err != nil {
			return nil, listtotal.Total{}, contact.FieldError("phone", "The phone filter must be a valid phone number.")
		}
		f.Phone = e164
	}
	var (
		list  []contact.Contact
		total listtotal.Total
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.Contacts(ctx, f, q.Page.Limit, q.Page.Offset)
		return err
	})
	return list, total, err
}
