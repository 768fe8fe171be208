package peers

import (
	"context"
	"errors"
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

// Notification returns the number and text of the tenant's notification
// id; one transactions-svc does not have (unknown, expired) wraps
// optin.ErrNotFound. Every other error (transactions-svc unreachable, 5xx,
// breaker open, no service token) is transient.
func (t *Transactions) Notification(ctx context.Context, tenantID, id string) (string, string, error) {
	token, err := t.tokens.ServiceToken(ctx, tenantID, transactions.NotificationAbilities)
	if err != nil {
		return "", "", fmt.Errorf("getting a service token: %w", err)
	}
	n, err := t.client.Notification(ctx, token, id)
	if errors.Is(err, transactions.ErrNotFound) {
		return "", "", fmt.Errorf("notification %s: %w", id, optin.ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("reading notification: %w", err)
	}
	return n.To, n.Body, nil
}
