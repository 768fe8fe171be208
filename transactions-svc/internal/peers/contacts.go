// Package peers holds the adapters to the services transactions-svc calls.
// Contacts resolves contact references with contacts-svc through
// its client package (github.com/paylane/paylane/contacts-svc/client), which
// brings the circuit breaker (gobreaker) and per-call timeouts; this
// adapter adds its own, shorter deadline and maps the answers to the domain.
package peers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Contacts implements app.Contacts.
type Contacts struct {
	client  *client.Client
	timeout time.Duration
}

// New returns a resolver calling contacts-svc at baseURL, each call bounded
// by timeout.
func NewContacts(baseURL string, hc *http.Client, timeout time.Duration) *Contacts {
	return &Contacts{client: client.New(baseURL, hc), timeout: timeout}
}

// Resolve returns the live contact ref names, passing on the caller's
// internal token. An unknown or soft-deleted contact is
// txn.ErrContactNotFound; contacts-svc unreachable, failing or too slow is
// app.ErrUnavailable.
func (r *Contacts) Resolve(ctx context.Context, token string, ref app.ContactRef) (app.Contact, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var (
		c   *client.Contact
		err error
	)
	if ref.ID != "" {
		if !ids.Valid(ref.ID) {
			return app.Contact{}, txn.ErrContactNotFound
		}
		c, err = r.client.Contact(ctx, token, ref.ID)
	} else {
		// Find-or-create without a phone can only find: a contact cannot be
		// created without one, so an unknown external id is refused (422).
		c, _, err = r.client.FindOrCreate(ctx, token, client.ContactInput{ExternalID: ref.ExternalID}, "")
	}
	if err != nil {
		return app.Contact{}, mapError(err)
	}
	if !c.Live() {
		return app.Contact{}, txn.ErrContactNotFound
	}
	return app.Contact{ID: c.ID, FirstName: deref(c.FirstName), LastName: deref(c.LastName), Phone: c.Phone}, nil
}

// mapError turns a client error into the domain's: 404 and 422 are an
// unknown contact; contacts-svc unreachable, unavailable (502, 503, 504)
// or the tenant's breaker open is app.ErrUnavailable (503, retry later);
// any other answer (another 4xx, a 500 for this input) is reported as it
// is (500): retrying the same request would fail the same way.
func mapError(err error) error {
	var ce *client.Error
	switch {
	case errors.Is(err, client.ErrNotFound):
		return txn.ErrContactNotFound
	case errors.As(err, &ce) && ce.Status == http.StatusUnprocessableEntity:
		return txn.ErrContactNotFound
	case !unavailable(err):
		return fmt.Errorf("contacts-svc refused or failed the lookup: %w", err)
	}
	return fmt.Errorf("%w: %w", app.ErrUnavailable, err)
}

// unavailable reports whether err says contacts-svc could not answer for
// now: no answer (transport error, timeout, the tenant's breaker open) or
// 502, 503, 504.
func unavailable(err error) bool {
	return breaker.Unavailable(client.StatusOf(err))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
