package app

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// MaxNotificationsByID is how many ids one NotificationsByID may name: it
// bounds the answer (a notification's text is one SMS of at most a few
// hundred characters).
const MaxNotificationsByID = 100

// NotificationsByID returns the tenant's notifications among list (their
// numbers and texts), for optin-svc, which records the messages of a batch
// of notification.requested events at once; unknown and expired ids are
// left out. list holds 1 to MaxNotificationsByID well formed ids, each once
// (httpx.QueryReader.IDs reads them so).
func (a *App) NotificationsByID(ctx context.Context, s Scope, list []string) ([]store.Notification, error) {
	var found []store.Notification
	err := a.store.Read(ctx, s.TenantID, func(tx *store.Tx) error {
		var err error
		found, err = tx.NotificationsByID(ctx, list)
		return err
	})
	return found, err
}
