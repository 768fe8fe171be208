package peers

import (
	"context"
	"fmt"

	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// Transactions reads from transactions-svc the number and text of the
// notifications whose notification.requested events carry ids only.
type Transactions struct {
	client *transactions.Client
	tokens Tokens
}

// NewTransactions returns the adapter; it calls with service tokens of the
// tenant that can view receivables and payables.
func NewTransactions(client *transactions.Client, tokens Tokens) *Transactions {
	return &Transactions{client: client, tokens: tokens}
}

// Notifications returns the number and text of the tenant's notifications
// among ids, by id, reading transactions.MaxNotificationsByID at a time;
// the ones transactions-svc does not have (unknown, expired) are absent.
// Every error (transactions-svc unreachable, a 4xx or 5xx, the breaker
// open, no service token) is transient: even a 404 is not an answer about
// the ids, since the route answers the known ones and leaves the others
// out (a transactions-svc of an earlier release, without the route,
// answers 404).
func (t *Transactions) Notifications(ctx context.Context, tenantID string, ids []string) (map[string]optin.NotificationText, error) {
	token, err := t.tokens.ServiceToken(ctx, tenantID, transactions.NotificationAbilities)
	if err != nil {
		return nil, fmt.Errorf("getting a service token: %w", err)
	}
	out := make(map[string]optin.NotificationText, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), transactions.MaxNotificationsByID)]
		ids = ids[len(chunk):]
		found, err := t.client.Notifications(ctx, token, chunk)
		if err != nil {
			return nil, fmt.Errorf("reading %d notifications: %w", len(chunk), err)
		}
		for _, n := range found {
			out[n.ID] = optin.NotificationText{To: n.To, Body: n.Body}
		}
	}
	return out, nil
}
