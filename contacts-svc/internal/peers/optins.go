// Package peers holds the adapters to the services contacts-svc calls:
// Remote reads a contact's opt-in standing from optin-svc, which
// owns consents and the suppression list, for the single contact read.
package peers

import (
	"context"
	"errors"
	"fmt"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/breaker"
	optinclient "github.com/paylane/paylane/optin-svc/client"
)

// ErrNoToken means the context carries no internal token to call with.
var ErrNoToken = errors.New("optins: no internal token in the request context")

// Remote answers opt-in standings through optin-svc's client, on behalf of
// the request being served (its internal token travels in the context).
type Remote struct {
	client *optinclient.Client
}

// NewRemote returns the adapter over a client of optin-svc.
func NewRemote(c *optinclient.Client) *Remote { return &Remote{client: c} }

// OptIn implements app.OptIns.
func (r *Remote) OptIn(ctx context.Context, _ string, c contact.Contact) (contact.OptIn, error) {
	token := authz.TokenFrom(ctx)
	if token == "" {
		return contact.OptIn{}, ErrNoToken
	}
	status, consents, err := r.client.OptInStatus(ctx, token, c.ID, c.Phone)
	if err != nil && breaker.Unavailable(optinclient.StatusOf(err)) {
		return contact.OptIn{}, fmt.Errorf("%w: asking optin-svc: %w", contact.ErrUnavailable, err)
	}
	if err != nil {
		return contact.OptIn{}, fmt.Errorf("asking optin-svc: %w", err)
	}
	out := contact.OptIn{Status: status, Consents: make([]contact.Consent, len(consents))}
	for i, k := range consents {
		out.Consents[i] = contact.Consent{
			ID: k.ID, ContactID: k.ContactID, OptInCodeID: k.OptInCodeID, Status: k.Status,
			Channel: k.Channel, ConsentedAt: k.ConsentedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt,
		}
	}
	return out, nil
}
