package app

import (
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// View renders an item as the API and the events show it: an
// events.Receivable (with payment_link_url while its link is live) or an
// events.Payable (never with its link).
func (a *App) View(it txn.Item) any {
	if it.Direction == txn.Payable {
		return wire.Payable(it)
	}
	var url *string
	if it.LinkActive(a.Now()) {
		u := a.linkURL(it)
		url = &u
	}
	return wire.Receivable(it, url)
}

// Views renders a list.
func (a *App) Views(list []txn.Item) []any {
	out := make([]any, len(list))
	for i, it := range list {
		out[i] = a.View(it)
	}
	return out
}

// LinkPath is the hosted page path of an item.
func LinkPath(it txn.Item) string {
	if it.Direction == txn.Payable {
		return links.PayablePrefix + it.ID
	}
	return links.ReceivablePrefix + it.ID
}

// linkURL is the signed URL of the item's current link (issued: ExpiresAt
// set).
func (a *App) linkURL(it txn.Item) string {
	if it.Link.ExpiresAt == nil {
		return ""
	}
	return a.links.URL(LinkPath(it), *it.Link.ExpiresAt)
}
