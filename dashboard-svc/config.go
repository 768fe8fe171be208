package dashboardsvc

import (
	"errors"
	"fmt"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
)

// Config is everything dashboard-svc needs to run, read from the
// environment by ConfigFromEnv or built directly (devstack, tests).
// HTTPAddr serves /dashboard; DatabaseURL holds the sessions; IdentityURL
// (users, sign-in, tokens) and the peers' URLs default to their Kubernetes
// Services (libs/discovery).
type Config struct {
	envconf.Base
	// TransactionsURL is transactions-svc's base URL: the overview's counts
	// (TRANSACTIONS_URL).
	TransactionsURL string `env:"TRANSACTIONS_URL"`
	// WebhookURL is webhook-svc's base URL: the webhook endpoints page
	// (WEBHOOK_URL).
	WebhookURL string `env:"WEBHOOK_URL"`
	// ContactsURL is contacts-svc's base URL: the contacts pages (CONTACTS_URL).
	ContactsURL string `env:"CONTACTS_URL"`
	// OptInURL is optin-svc's base URL: opt-in codes, consents and the
	// suppression list (OPTIN_URL).
	OptInURL string `env:"OPTIN_URL"`
	// BatchURL is batch-svc's base URL: the batches pages (BATCH_URL).
	BatchURL string `env:"BATCH_URL"`
	// ServiceSecret opens identity-svc's service-to-service routes (SERVICE_SECRET).
	ServiceSecret string `env:"SERVICE_SECRET"`
}

const (
	serviceName     = "dashboard-svc"
	minSecretLength = 16
)

// ConfigFromEnv reads the configuration from the environment over the
// peers' Kubernetes URLs. It fails on values that cannot be parsed;
// Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	cfg := Config{TransactionsURL: discovery.DefaultURL("transactions-svc"), WebhookURL: discovery.DefaultURL("webhook-svc"),
		ContactsURL: discovery.DefaultURL("contacts-svc"), OptInURL: discovery.DefaultURL("optin-svc"),
		BatchURL: discovery.DefaultURL("batch-svc")}
	cfg.IdentityURL = discovery.DefaultURL("identity-svc")
	err := envconf.Parse(&cfg)
	return cfg, err
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Database | envconf.Identity)
	need := func(ok bool, msg string) {
		if !ok {
			errs = append(errs, errors.New(msg))
		}
	}
	need(envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	need(envconf.IsHTTPURL(c.WebhookURL), "WEBHOOK_URL must be the http(s) base URL of webhook-svc")
	need(envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
	need(envconf.IsHTTPURL(c.OptInURL), "OPTIN_URL must be the http(s) base URL of optin-svc")
	need(envconf.IsHTTPURL(c.BatchURL), "BATCH_URL must be the http(s) base URL of batch-svc")
	need(len(c.ServiceSecret) >= minSecretLength, fmt.Sprintf("SERVICE_SECRET is required (at least %d characters)", minSecretLength))
	return errors.Join(errs...)
}
