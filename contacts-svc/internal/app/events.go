package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/internal/wire"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/reqid"
)

// publish records events of types about c in the outbox of tx. The data is
// the contact as the API shows it, deleted_at included, without the opt-in
// fields.
func publish(ctx context.Context, tx *store.Tx, c contact.Contact, types ...string) error {
	data := wire.NewContact(c, true)
	for _, typ := range types {
		env, err := events.New(typ, tx.TenantID(), reqid.From(ctx), data)
		if err != nil {
			return err
		}
		if err := tx.Publish(ctx, env); err != nil {
			return err
		}
	}
	return nil
}
