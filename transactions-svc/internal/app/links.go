package app

import (
	"context"
	"errors"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Errors of hosted-page links whose signature is authentic.
var (
	// ErrLinkRevoked: the link was revoked or replaced by a newer one, or the
	// item was cancelled (410 link_revoked).
	ErrLinkRevoked = errors.New("app: link revoked")
	// ErrLinkExpired: the link is past its expiry, or the item expired (410
	// link_expired).
	ErrLinkExpired = errors.New("app: link expired")
)

// OpenLink returns the item behind a hosted-page link whose signature was
// verified: d and id from its path, expires from its query. The tenant is
// found by the item id alone (link_routes); the item is read in that
// tenant's scope. A link that is not the item's current one, was revoked,
// or belongs to a cancelled or deleted item is ErrLinkRevoked; a link past its expiry
// or of an expired item is ErrLinkExpired. Other states (paid, processing,
// ...) are returned for the page to show.
func (a *App) OpenLink(ctx context.Context, d txn.Direction, id string, expires time.Time) (txn.Item, error) {
	tenantID, err := a.route(ctx, d, id)
	if err != nil {
		return txn.Item{}, err
	}
	var it txn.Item
	err = a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		it, err = tx.Item(ctx, d, id)
		return err
	})
	if errors.Is(err, txn.ErrNotFound) {
		// The route exists, so the item did: it was deleted (only drafts,
		// cancelled and expired items can be), and its link went with it.
		return txn.Item{}, ErrLinkRevoked
	}
	if err != nil {
		return txn.Item{}, err
	}
	return it, a.checkLink(it, expires)
}

// route returns the tenant of an item of direction d.
func (a *App) route(ctx context.Context, d txn.Direction, id string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	tenantID, dir, err := a.store.Route(ctx, id)
	if err != nil {
		return "", err
	}
	if dir != d {
		return "", txn.ErrNotFound
	}
	return tenantID, nil
}

// checkLink decides whether the link with expiry expires still opens it.
func (a *App) checkLink(it txn.Item, expires time.Time) error {
	switch {
	case it.Link.ExpiresAt == nil || it.Link.ExpiresAt.Unix() != expires.Unix(), it.Link.RevokedAt != nil,
		it.Status == txn.Cancelled:
		return ErrLinkRevoked
	case it.Status == txn.Expired || !a.Now().Before(expires):
		return ErrLinkExpired
	}
	return nil
}
