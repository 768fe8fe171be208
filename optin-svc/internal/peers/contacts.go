// Package peers adapts the clients of the services optin-svc calls to the
// use cases' terms: contacts-svc (phone records, find-or-create by number)
// through contacts-svc/client, with identity-svc's service tokens for calls
// made without a user's request.
package peers

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// Tokens hands out internal JWTs for a tenant (identity-svc/client's
// ServiceToken).
type Tokens interface {
	ServiceToken(ctx context.Context, tenantID string, abilities []string) (string, error)
}

// contactAbilities are the abilities of optin-svc's service tokens for
// contacts-svc: reading and creating contacts.
var contactAbilities = []string{"api:view-any-contact", "api:view-contact", "api:create-contact"}

// Contacts implements the use cases' view of contacts-svc.
type Contacts struct {
	client *contacts.Client
	tokens Tokens
}

// NewContacts returns the adapter; tokens supplies service tokens when the
// caller passes none.
func NewContacts(client *contacts.Client, tokens Tokens) *Contacts {
	return &Contacts{client: client, tokens: tokens}
}

// PhoneNumber returns the E.164 number of the tenant's phone record
// phoneID; an unknown record wraps optin.ErrUnknownPhone.
func (c *Contacts) PhoneNumber(ctx context.Context, tenantID, token, phoneID string) (string, error) {
	token, err := c.token(ctx, tenantID, token)
	if err != nil {
		return "", err
	}
	rec, err := c.client.Phone(ctx, token, phoneID)
	if errors.Is(err, contacts.ErrNotFound) {
		return "", fmt.Errorf("%w: %w", optin.ErrUnknownPhone, err)
	}
	if err != nil {
		return "", fmt.Errorf("looking up contact phone: %w", unavailable(err))
	}
	return rec.Phone, nil
}

// FindOrCreateByPhone returns the id of the tenant's live contact with the
// number, creating one when there is none. Two callers racing on one number
// both end with the contact one of them created.
func (c *Contacts) FindOrCreateByPhone(ctx context.Context, tenantID, token, e164 string) (string, error) {
	token, err := c.token(ctx, tenantID, token)
	if err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		found, err := c.client.Search(ctx, token, contacts.SearchQuery{Phone: e164, Limit: 1})
		if err != nil {
			return "", fmt.Errorf("searching contact by phone: %w", unavailable(err))
		}
		if len(found) > 0 {
			return found[0].ContactID, nil
		}
		created, _, err := c.client.FindOrCreate(ctx, token, contacts.ContactInput{Phone: e164}, "")
		var ce *contacts.Error
		if attempt == 0 && errors.As(err, &ce) && len(ce.Fields()["phone"]) > 0 {
			continue // another request created the contact in between: find it
		}
		if err != nil {
			return "", fmt.Errorf("creating contact: %w", unavailable(err))
		}
		return created.ID, nil
	}
}

// token returns the caller's token, else a service token of the tenant.
func (c *Contacts) token(ctx context.Context, tenantID, token string) (string, error) {
	if token != "" {
		return token, nil
	}
	t, err := c.tokens.ServiceToken(ctx, tenantID, contactAbilities)
	if err != nil {
		return "", fmt.Errorf("getting a service token: %w", err)
	}
	return t, nil
}

// unavailable marks err as optin.ErrUnavailable when contacts-svc could not
// be reached (the client's breaker is open, or the call never got an
// answer), so callers answer 503 rather than 500.
func unavailable(err error) error {
	var ue *url.Error
	if errors.Is(err, contacts.ErrUnavailable) || errors.As(err, &ue) {
		return fmt.Errorf("%w: %w", optin.ErrUnavailable, err)
	}
	return err
}
