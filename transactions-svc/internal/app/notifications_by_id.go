package app

import (
	"context"
	"slices"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// MaxNotificationsByID is how many ids one NotificationsByID may name: it
// bounds the answer (a notification's text is one SMS of at most a few
// hundred characters).
const MaxNotificationsByID = 100

// NotificationsByID returns the tenant's notifications among list (their
// numbers and texts), for optin-svc, which records the messages of a batch
// of notification.requested events at once. Duplicates are read once;
// unknown and expired ids are left out. An empty list, more than
// MaxNotificationsByID ids or a malformed id is a validation error on
// "ids".
func (a *App) NotificationsByID(ctx context.Context, s Scope, list []string) ([]store.Notification, error) {
	switch {
	case len(list) == 0:
		return nil, verr.Field("ids", "The ids field is required.")
	case len(list) > MaxNotificationsByID:
		return nil, verr.Field("ids", "The ids field must not have more than 100 items.")
	}
	for _, id := range list {
		if !ids.Valid(id) {
			return nil, verr.Field("ids", "Each of the ids must be a notification id.")
		}
	}
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	var found []store.Notification
	err := a.store.Read(ctx, s.TenantID, func(tx *store.Tx) error {
		var err error
		found, err = tx.NotificationsByID(ctx, list)
		return err
	})
	return found, err
}
