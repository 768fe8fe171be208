package optin

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/optin-svc/internal/app"
)

// Config is everything optin-svc needs to run, filled from the environment
// by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /api/v1, /admin/v1, /l/o, /webhooks/sms and /internal/v1 (HTTP_ADDR, ":8080").
	HTTPAddr string
	// HTTPListener, when set, is served instead of listening on HTTPAddr
	// (the devstack binds every service's address before any starts).
	HTTPListener net.Listener
	// InternalAddr serves /healthz, /readyz, /metrics, /debug/pprof (INTERNAL_ADDR, ":9090").
	InternalAddr string
	// DatabaseURL is the app role's DSN (DATABASE_URL).
	DatabaseURL string
	// MigrateDatabaseURL is the owner's DSN; when set, Run migrates first (MIGRATE_DATABASE_URL).
	MigrateDatabaseURL string
	// DBMaxConns sizes the app pool (DB_MAX_CONNS, 10).
	DBMaxConns int32
	// KafkaBrokers carry the outbox's events and the consumed ones
	// (notification.requested, tenant.updated); empty runs neither (KAFKA_BROKERS).
	KafkaBrokers []string
	// IdentityURL is identity-svc's base URL: the keys of internal tokens
	// and service tokens for background calls (IDENTITY_URL).
	IdentityURL string
	// ServiceSecret authenticates service-token requests to identity-svc (SERVICE_SECRET).
	ServiceSecret string
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string
	// TransactionsURL is transactions-svc's base URL: the number and text
	// of each notification.requested, read by its id (TRANSACTIONS_URL).
	TransactionsURL string
	// AdminToken opens the operator plane (ADMIN_TOKEN).
	AdminToken string
	// PublicBaseURL is the public host, e.g. https://api.paylane.example: the
	// opt-in codes' URLs, the provider's status callback URL and the URL the
	// inbound signature is computed over (PUBLIC_BASE_URL).
	PublicBaseURL string
	// DefaultRegion reads national phone numbers when the tenant's region is
	// unknown (DEFAULT_REGION, "US").
	DefaultRegion string

	// SMSProvider is sink (messages stored, readable on the admin plane) or
	// twilio (SMS_PROVIDER, "sink").
	SMSProvider string
	// TwilioAccountSID, TwilioAuthToken and TwilioBaseURL configure the
	// twilio provider (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_BASE_URL
	// "https://api.twilio.com").
	TwilioAccountSID, TwilioAuthToken, TwilioBaseURL string
	// SMSDefaultFrom is the sender number of tenants without their own (SMS_DEFAULT_FROM).
	SMSDefaultFrom string
	// SMSDefaultTenant receives inbound messages to the default sender that
	// no earlier conversation assigns to a tenant (SMS_DEFAULT_TENANT, optional).
	SMSDefaultTenant string
	// SMSAuthToken verifies X-Twilio-Signature of provider callbacks; with
	// twilio it is the account's auth token (SMS_AUTH_TOKEN).
	SMSAuthToken string
	// SendMaxAttempts bounds the provider calls of one message (SMS_SEND_MAX_ATTEMPTS, 6).
	SendMaxAttempts int
	// SendRetryBase is the first retry delay after a transient provider
	// error; each later one doubles, up to 10 minutes (SMS_SEND_RETRY_BASE, "2s").
	SendRetryBase time.Duration
	// SendPollInterval is how often the dispatcher looks for due messages
	// besides being woken by new ones (SMS_SEND_POLL_INTERVAL, "1s").
	SendPollInterval time.Duration

	// Contacts, when set, replaces the contacts-svc client built from
	// ContactsURL (tests).
	Contacts Contacts
	// Logger receives the service's logs (built from LOG_LEVEL by ConfigFromEnv).
	Logger *slog.Logger
	// Ready, when set, is called with the bound addresses once every listener is up.
	Ready func(Addrs)
}

// Contacts is what optin-svc needs of contacts-svc (see Config.Contacts).
type Contacts = app.Contacts

// Addrs are the addresses Run listens on.
type Addrs struct {
	HTTP, Internal string
}

// Defaults of the configuration.
const (
	DefaultHTTPAddr         = ":8080"
	DefaultInternalAddr     = ":9090"
	DefaultDBMaxConns       = 10
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
	cfg := Config{
		HTTPAddr:           envconf.Or("HTTP_ADDR", DefaultHTTPAddr),
		InternalAddr:       envconf.Or("INTERNAL_ADDR", DefaultInternalAddr),
		DatabaseURL:        os.Getenv("DATABASE_URL"),
		MigrateDatabaseURL: os.Getenv("MIGRATE_DATABASE_URL"),
		DBMaxConns:         DefaultDBMaxConns,
		KafkaBrokers:       envconf.List(os.Getenv("KAFKA_BROKERS")),
		IdentityURL:        os.Getenv("IDENTITY_URL"),
		ServiceSecret:      os.Getenv("SERVICE_SECRET"),
		ContactsURL:        os.Getenv("CONTACTS_URL"),
		TransactionsURL:    os.Getenv("TRANSACTIONS_URL"),
		AdminToken:         os.Getenv("ADMIN_TOKEN"),
		PublicBaseURL:      os.Getenv("PUBLIC_BASE_URL"),
		DefaultRegion:      envconf.Or("DEFAULT_REGION", DefaultRegion),
		SMSProvider:        envconf.Or("SMS_PROVIDER", ProviderSink),
		TwilioAccountSID:   os.Getenv("TWILIO_ACCOUNT_SID"),
		TwilioAuthToken:    os.Getenv("TWILIO_AUTH_TOKEN"),
		TwilioBaseURL:      envconf.Or("TWILIO_BASE_URL", DefaultTwilioBaseURL),
		SMSDefaultFrom:     os.Getenv("SMS_DEFAULT_FROM"),
		SMSDefaultTenant:   os.Getenv("SMS_DEFAULT_TENANT"),
		// Twilio signs its callbacks with the account's auth token.
		SMSAuthToken:     envconf.Or("SMS_AUTH_TOKEN", os.Getenv("TWILIO_AUTH_TOKEN")),
		SendMaxAttempts:  DefaultSendMaxAttempts,
		SendRetryBase:    DefaultSendRetryBase,
		SendPollInterval: DefaultSendPollInterval,
	}
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			errs = append(errs, fmt.Errorf("DB_MAX_CONNS: %w", err))
		}
		cfg.DBMaxConns = int32(n)
	}
	if v := os.Getenv("SMS_SEND_MAX_ATTEMPTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("SMS_SEND_MAX_ATTEMPTS: %w", err))
		}
		cfg.SendMaxAttempts = n
	}
	errs = append(errs, envconf.Duration("SMS_SEND_RETRY_BASE", &cfg.SendRetryBase),
		envconf.Duration("SMS_SEND_POLL_INTERVAL", &cfg.SendPollInterval))
	level, err := envconf.LogLevel()
	errs = append(errs, err)
	cfg.Logger = obs.NewLogger(serviceName, os.Stdout, level)
	return cfg, errors.Join(errs...)
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	need := func(ok bool, msg string) {
		if !ok {
			errs = append(errs, errors.New(msg))
		}
	}
	need(c.HTTPAddr != "", "HTTP_ADDR is required")
	need(c.InternalAddr != "", "INTERNAL_ADDR is required")
	need(c.DatabaseURL != "", "DATABASE_URL is required")
	need(c.DBMaxConns >= 1, "DB_MAX_CONNS must be at least 1")
	need(envconf.IsHTTPURL(c.IdentityURL), "IDENTITY_URL must be the http(s) base URL of identity-svc")
	need(c.Contacts != nil || envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
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
