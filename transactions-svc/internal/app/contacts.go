package app

import (
	"context"
	"errors"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// resolve finds the live contact a create body names: contact_id, or
// contact {external_id}. An unknown or deleted contact is a 422 naming the
// field the client sent.
func (a *App) resolve(ctx context.Context, scope Scope, in txn.Input) (Contact, error) {
	ref, field := ContactRef{}, "contact_id"
	if in.ContactObject {
		ref.ExternalID, field = *in.ContactExternalID, "contact.external_id"
	} else {
		ref.ID = *in.ContactID
	}
	c, err := a.contacts.Resolve(ctx, scope.Token, ref)
	if errors.Is(err, txn.ErrContactNotFound) {
		return Contact{}, verr.Field(field, "The selected "+field+" is invalid: no live contact has it.")
	}
	return c, err
}
