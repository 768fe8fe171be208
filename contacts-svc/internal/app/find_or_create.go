package app

import (
	"context"
	"errors"
	"strings"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// FindOrCreate returns the live contact with in's external id when there is
// one (created false; in's other fields are not applied), else creates a
// contact from in exactly as CreateContact does (created true). Without an
// external id it always creates. Receivable and payable creates use it to
// resolve their contact {external_id, ...}.
func (a *App) FindOrCreate(ctx context.Context, scope Scope, in contact.Input) (c contact.Contact, created bool, err error) {
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		if in.ExternalID != nil && strings.TrimSpace(*in.ExternalID) != "" {
			ext := strings.TrimSpace(*in.ExternalID)
			if err := tx.LockExternalID(ctx, ext); err != nil {
				return err
			}
			found, err := tx.LiveByExternalID(ctx, ext)
			if err == nil {
				c = found
				return nil
			}
			if !errors.Is(err, contact.ErrNotFound) {
				return err
			}
		}
		var err error
		c, err = a.create(ctx, tx, scope, in)
		created = err == nil
		return err
	})
	return c, created, err
}
