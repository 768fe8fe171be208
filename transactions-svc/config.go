package transactionssvc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/sealer"
)

// serviceName labels logs and metrics.
const serviceName = "transactions-svc"

// Config is everything transactions-svc needs to run, read from the
// environment by ConfigFromEnv or built directly (devstack, tests).
// HTTPAddr serves /api/v1 and the hosted pages /l/r, /l/p; KafkaBrokers
// also feed the message.* consumer.
type Config struct {
	envconf.Base
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string `env:"CONTACTS_URL"`
	// ContactsTimeout bounds each call to contacts-svc (CONTACTS_TIMEOUT, 3s).
	ContactsTimeout time.Duration `env:"CONTACTS_TIMEOUT" envDefault:"3s"`
	// LinkKey signs the hosted-page links, at least 32 bytes (LINK_KEY, base64).
	LinkKey envconf.Bytes `env:"LINK_KEY"`
	// PublicBaseURL is the public origin of the links, e.g. https://pay.example.com (PUBLIC_BASE_URL).
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// RailEncryptionKey seals the tenants' payment-provider secrets, 32
	// bytes (RAIL_ENCRYPTION_KEY, base64). Without it every tenant stays on
	// the sandbox rail and PUT /payment-rail answers 503.
	RailEncryptionKey envconf.Bytes `env:"RAIL_ENCRYPTION_KEY"`
	// StripeAPIBase is Stripe's API origin (STRIPE_API_BASE; empty is
	// https://api.stripe.com, the local stack points it at stripe-mock).
	StripeAPIBase string `env:"STRIPE_API_BASE"`
	// StripeTimeout bounds each call to Stripe (STRIPE_TIMEOUT, 10s).
	StripeTimeout time.Duration `env:"STRIPE_TIMEOUT" envDefault:"10s"`
	// SchedulerInterval is how often the scheduler polls (SCHEDULER_INTERVAL, 1s).
	SchedulerInterval time.Duration `env:"SCHEDULER_INTERVAL" envDefault:"1s"`
}

// Defaults of the configuration.
const (
	DefaultContactsTimeout   = 3 * time.Second
	DefaultSchedulerInterval = time.Second
	DefaultStripeTimeout     = 10 * time.Second
	minLinkKey               = 32
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	err := envconf.Parse(&cfg)
	return cfg, err
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Database | envconf.Identity)
	if !envconf.IsHTTPURL(c.ContactsURL) {
		errs = append(errs, errors.New("CONTACTS_URL must be the http(s) base URL of contacts-svc"))
	}
	if len(c.LinkKey) < minLinkKey {
		errs = append(errs, fmt.Errorf("LINK_KEY must be the base64 of at least %d random bytes", minLinkKey))
	}
	if !envconf.IsHTTPURL(c.PublicBaseURL) {
		errs = append(errs, errors.New("PUBLIC_BASE_URL must be an absolute http(s) URL"))
	}
	if c.RailEncryptionKey != nil && len(c.RailEncryptionKey) != sealer.KeySize {
		errs = append(errs, fmt.Errorf("RAIL_ENCRYPTION_KEY must be the base64 of %d bytes", sealer.KeySize))
	}
	if c.StripeAPIBase != "" && !envconf.IsHTTPURL(c.StripeAPIBase) {
		errs = append(errs, errors.New("STRIPE_API_BASE must be an absolute http(s) URL"))
	}
	if c.StripeTimeout < 0 {
		errs = append(errs, errors.New("STRIPE_TIMEOUT must not be negative"))
	}
	if c.ContactsTimeout <= 0 || c.SchedulerInterval <= 0 {
		errs = append(errs, errors.New("CONTACTS_TIMEOUT and SCHEDULER_INTERVAL must be positive"))
	}
	return errors.Join(errs...)
}

// jwksURL is identity-svc's key set.
func (c Config) jwksURL() string { return strings.TrimRight(c.IdentityURL, "/") + "/internal/v1/jwks" }
