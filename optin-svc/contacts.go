package optin

import (
	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/peers"
)

// newContactsClient returns the contacts-svc client of the configuration:
// calls without a user's token use service tokens from identity-svc.
func newContactsClient(cfg Config) Contacts {
	tokens := identity.NewWithSecret(cfg.IdentityURL, cfg.ServiceSecret, nil).WithService(serviceName)
	return peers.NewContacts(cfg.ContactsURL, tokens, nil)
}
