package optin

import (
	"net/http"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/peers"
)

// newIdentityClient returns the identity-svc client of service calls
// (service tokens, tenant reads), authenticated by the service secret.
func newIdentityClient(cfg Config) *identity.Client {
	return identity.NewWithSecret(cfg.IdentityURL, cfg.ServiceSecret, nil).WithService(serviceName)
}

// newContactsClient returns the contacts-svc client of the configuration:
// calls without a user's token use service tokens from identity-svc.
func newContactsClient(cfg Config, tokens *identity.Client) Contacts {
	return peers.NewContacts(contacts.New(cfg.ContactsURL, &http.Client{Timeout: contactsTimeout}), tokens)
}

// contactsTimeout bounds a call to contacts-svc (the client also applies
// its own per-call timeout and a circuit breaker).
const contactsTimeout = 10 * time.Second
