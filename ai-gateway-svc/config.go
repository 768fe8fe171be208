package aigatewaysvc

import (
	"errors"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
)

// Config is everything ai-gateway-svc needs to run, read from the
// environment by ConfigFromEnv or built directly (devstack, tests). It has
// no database: the service owns no data and calls the others. HTTPAddr
// serves /api/v1/gateway; the peers' URLs (identity-svc's included) default
// to their Kubernetes Services (libs/discovery).
type Config struct {
	envconf.Base
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string `env:"CONTACTS_URL"`
	// TransactionsURL is transactions-svc's base URL (TRANSACTIONS_URL).
	TransactionsURL string `env:"TRANSACTIONS_URL"`
}

// serviceName labels logs and metrics.
const serviceName = "ai-gateway-svc"

// ConfigFromEnv reads the configuration from the environment over the
// peers' Kubernetes URLs. It fails on values that cannot be parsed;
// Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	cfg := Config{ContactsURL: discovery.DefaultURL("contacts-svc"), TransactionsURL: discovery.DefaultURL("transactions-svc")}
	cfg.IdentityURL = discovery.DefaultURL("identity-svc")
	err := envconf.Parse(&cfg)
	return cfg, err
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Identity)
	need := func(ok bool, msg string) {
		if !ok {
			errs = append(errs, errors.New(msg))
		}
	}
	need(envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
	need(envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	return errors.Join(errs...)
}
