package app

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
)

// MaxContactsByID is how many ids one ContactsByID may name: a page of the
// largest list (per_page 100).
const MaxContactsByID = 100

// ContactsByID returns the tenant's contacts among list (live and
// soft-deleted; ids the tenant does not hold left out), for a page that
// shows many items' contacts at once. list holds 1 to MaxContactsByID well
// formed ids, each once (httpx.QueryReader.IDs reads them so).
func (a *App) ContactsByID(ctx context.Context, scope Scope, list []string) ([]contact.Contact, error) {
	var found []contact.Contact
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		found, err = tx.ContactsByID(ctx, list)
		return err
	})
	return found, err
}
