package optinsvc

import (
	"net/http"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/peers"
	transactions "github.com/paylane/paylane/transactions-svc/client"
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

// contactsTimeout bounds a call to contacts-svc or transactions-svc (the
// clients also apply their own per-call timeouts and circuit breakers).
const contactsTimeout = 10 * time.Second

// newTransactionsClient returns the transactions-svc client that reads the
// notifications of notification.requested, with service tokens of the
// event's tenant.
func newTransactionsClient(cfg Config, tokens *identity.Client) *peers.Transactions {
	return peers.NewTransactions(transactions.New(cfg.TransactionsURL, &http.Client{Timeout: contactsTimeout}), tokens)
}
