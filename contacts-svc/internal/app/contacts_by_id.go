package app

import (
	"context"
	"slices"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/ids"
)

// MaxContactsByID is how many ids one ContactsByID may name: a page of the
// largest list (per_page 100).
const MaxContactsByID = 100

// ContactsByID returns the tenant's contacts among list (live and
// soft-deleted; duplicates read once; ids the tenant does not hold left
// out), for a page that shows many items' contacts at once. An empty list,
// more than MaxContactsByID ids or a malformed id is a validation error on
// "ids".
func (a *App) ContactsByID(ctx context.Context, scope Scope, list []string) ([]contact.Contact, error) {
	if len(list) == 0 {
		return nil, idsProblem("The ids field is required.")
	}
	if len(list) > MaxContactsByID {
		return nil, idsProblem("The ids field must not have more than 100 items.")
	}
	for _, id := range list {
		if !ids.Valid(id) {
			return nil, idsProblem("Each of the ids must be a contact id.")
		}
	}
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	var found []contact.Contact
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		found, err = tx.ContactsByID(ctx, list)
		return err
	})
	return found, err
}

func idsProblem(msg string) error {
	return &contact.ValidationError{Fields: map[string][]string{"ids": {msg}}}
}
