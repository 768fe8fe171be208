package optinsvc

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/optin-svc/internal/app"
)

// Config is everything optin-svc needs to run, read from the environment
// by ConfigFromEnv or built directly (devstack, tests). HTTPAddr serves
// /api/v1, /admin/v1, /l/o, /webhooks/sms and /internal/v1; KafkaBrokers
// carry the outbox's events and the consumed ones (notification.requested,
// tenant.updated); IdentityURL also issues service tokens for background
// calls.
type Config struct {
	envconf.Base
	// ServiceSecret authenticates service-token requests to identity-svc (SERVICE_SECRET).
	ServiceSecret string `env:"SERVICE_SECRET"`
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string `env:"CONTACTS_URL"`
	// TransactionsURL is transactions-svc's base URL: the number and text
	// of each notification.requested, read by its id (TRANSACTIONS_URL).
	TransactionsURL string `env:"TRANSACTIONS_URL"`
	// AdminToken opens the operator plane (ADMIN_TOKEN).
	AdminToken string `env:"ADMIN_TOKEN"`
	// PublicBaseURL is the public host, e.g. https://api.paylane.example: the
	// opt-in codes' URLs, the provider's status callback URL and the URL the
	// inbound signature is computed over (PUBLIC_BASE_URL).
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// DefaultRegion reads national phone numbers when the tenant's region is
	// unknown (DEFAULT_REGION, "US").
	DefaultRegion string `env:"DEFAULT_REGION" envDefault:"US"`

	// SMSProvider is sink (messages stored, readable on the admin plane) or
	// twilio (SMS_PROVIDER, "sink").
	SMSProvider string `env:"SMS_PROVIDER" envDefault:"sink"`
	// TwilioAccountSID, TwilioAuthToken and TwilioBaseURL configure the
	// twilio provider (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_BASE_URL
	// "https://api.twilio.com").
	TwilioAccountSID string `env:"TWILIO_ACCOUNT_SID"`
	TwilioAuthToken  string `env:"TWILIO_AUTH_TOKEN"`
	TwilioBaseURL    string `env:"TWILIO_BASE_URL" envDefault:"https://api.twilio.com"`
	// SMSDefaultFrom is the sender number of tenants without their own (SMS_DEFAULT_FROM).
	SMSDefaultFrom string `env:"SMS_DEFAULT_FROM"`
	// SMSDefaultTenant receives inbound messages to the default sender that
	// no earlier conversation assigns to a tenant (SMS_DEFAULT_TENANT, optional).
	SMSDefaultTenant string `env:"SMS_DEFAULT_TENANT"`
	// SMSAuthToken verifies X-Twilio-Signature of provider callbacks; with
	// twilio it is the account's auth token, its default (SMS_AUTH_TOKEN).
	SMSAuthToken string `env:"SMS_AUTH_TOKEN"`
	// SendMaxAttempts bounds the provider calls of one message (SMS_SEND_MAX_ATTEMPTS, 6).
	SendMaxAttempts int `env:"SMS_SEND_MAX_ATTEMPTS" envDefault:"6"`
	// SendRetryBase is the first retry delay after a transient provider
	// error; each later one doubles, up to 10 minutes (SMS_SEND_RETRY_BASE, "2s").
	SendRetryBase time.Duration `env:"SMS_SEND_RETRY_BASE" envDefault:"2s"`
	// SendPollInterval is how often the dispatcher looks for due messages
	// besides being woken by new ones (SMS_SEND_POLL_INTERVAL, "1s").
	SendPollInterval time.Duration `env:"SMS_SEND_POLL_INTERVAL" envDefault:"1s"`
}

// Contacts is what optin-svc needs of contacts-svc (see WithContacts).
type Contacts = app.Contacts

// Defaults of the configuration.
const (
	DefaultRegion           = "US"
	DefaultTwilioBaseURL    = "https://api.twilio.com"
	DefaultSendMaxAttempts  = 6
	DefaultSendRetryBase    = 2 * time.Second
	DefaultSendPollInterval = time.Second
	ProviderSink            = "sink"
	ProviderTwilio          = "twilio"
	serviceName             = "optin-svc"
)

var (
	regionPattern = regexp.MustCompile(`^[A-Z]{2}$`)
	e164Pattern   = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	err := envconf.Parse(&cfg)
	if cfg.SMSAuthToken == "" {
		// Twilio signs its callbacks with the account's auth token.
		cfg.SMSAuthToken = cfg.TwilioAuthToken
	}
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
	need(envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
	need(envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	need(c.ServiceSecret != "", "SERVICE_SECRET is required (service tokens and tenant reads at identity-svc)")
	need(c.AdminToken != "", "ADMIN_TOKEN is required")
	need(c.SMSAuthToken != "", "SMS_AUTH_TOKEN is required (it verifies the SMS provider's callbacks)")
	need(envconf.IsHTTPURL(c.PublicBaseURL), "PUBLIC_BASE_URL must be the http(s) URL of the public host")
	need(regionPattern.MatchString(c.DefaultRegion), "DEFAULT_REGION must be an ISO 3166-1 alpha-2 code such as US")
	need(c.SMSDefaultFrom == "" || e164Pattern.MatchString(c.SMSDefaultFrom), "SMS_DEFAULT_FROM must be an E.164 number")
	need(c.SendMaxAttempts >= 1, "SMS_SEND_MAX_ATTEMPTS must be at least 1")
	need(c.SendRetryBase > 0, "SMS_SEND_RETRY_BASE must be positive")
	need(c.SendPollInterval > 0, "SMS_SEND_POLL_INTERVAL must be positive")
	switch c.SMSProvider {
	case ProviderSink:
	case ProviderTwilio:
		need(c.TwilioAccountSID != "", "TWILIO_ACCOUNT_SID is required with SMS_PROVIDER=twilio")
		need(c.TwilioAuthToken != "", "TWILIO_AUTH_TOKEN is required with SMS_PROVIDER=twilio")
		// Any other key refuses every callback: STOP replies would be lost.
		need(c.SMSAuthToken == "" || c.SMSAuthToken == c.TwilioAuthToken,
			"SMS_AUTH_TOKEN must equal TWILIO_AUTH_TOKEN with SMS_PROVIDER=twilio (Twilio signs its callbacks with it); leave it unset")
		need(envconf.IsHTTPURL(c.TwilioBaseURL), "TWILIO_BASE_URL must be an http(s) URL")
	default:
		errs = append(errs, fmt.Errorf("SMS_PROVIDER must be %s or %s", ProviderSink, ProviderTwilio))
	}
	return errors.Join(errs...)
}
