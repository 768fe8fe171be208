package transactions

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/sealer"
)

// serviceName labels logs and metrics.
const serviceName = "transactions-svc"

// Config is everything transactions-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /api/v1 and the hosted pages /l/r, /l/p (HTTP_ADDR, ":8080").
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
	// KafkaBrokers receive the outbox's events and feed the message.*
	// consumer; empty runs neither (KAFKA_BROKERS).
	KafkaBrokers []string
	// IdentityURL is identity-svc's base URL, for the JWKS of internal tokens (IDENTITY_URL).
	IdentityURL string
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string
	// ContactsTimeout bounds each call to contacts-svc (CONTACTS_TIMEOUT, 3s).
	ContactsTimeout time.Duration
	// LinkKey signs the hosted-page links, at least 32 bytes (LINK_KEY, base64).
	LinkKey []byte
	// PublicBaseURL is the public origin of the links, e.g. https://pay.example.com (PUBLIC_BASE_URL).
	PublicBaseURL string
	// RailEncryptionKey seals the tenants' payment-provider secrets, 32
	// bytes (RAIL_ENCRYPTION_KEY, base64). Without it every tenant stays on
	// the sandbox rail and PUT /payment-rail answers 503.
	RailEncryptionKey []byte
	// StripeAPIBase is Stripe's API origin (STRIPE_API_BASE; empty is
	// https://api.stripe.com, the local stack points it at stripe-mock).
	StripeAPIBase string
	// StripeTimeout bounds each call to Stripe (STRIPE_TIMEOUT, 10s).
	StripeTimeout time.Duration
	// SchedulerInterval is how often the scheduler polls (SCHEDULER_INTERVAL, 1s).
	SchedulerInterval time.Duration
	// Clock, when set, replaces time.Now (tests drive the scheduler with it).
	Clock func() time.Time
	// Logger receives the service's logs (built from LOG_LEVEL by ConfigFromEnv).
	Logger *slog.Logger
	// Ready, when set, is called with the bound addresses once every listener is up.
	Ready func(Addrs)
}

// Addrs are the addresses Run listens on.
type Addrs struct {
	HTTP, Internal string
}

// Defaults of the configuration.
const (
	DefaultHTTPAddr          = ":8080"
	DefaultInternalAddr      = ":9090"
	DefaultDBMaxConns        = 10
	DefaultContactsTimeout   = 3 * time.Second
	DefaultSchedulerInterval = time.Second
	DefaultStripeTimeout     = 10 * time.Second
	minLinkKey               = 32
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
		ContactsURL:        os.Getenv("CONTACTS_URL"),
		ContactsTimeout:    DefaultContactsTimeout,
		PublicBaseURL:      os.Getenv("PUBLIC_BASE_URL"),
		SchedulerInterval:  DefaultSchedulerInterval,
		StripeAPIBase:      os.Getenv("STRIPE_API_BASE"),
		StripeTimeout:      DefaultStripeTimeout,
	}
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			errs = append(errs, fmt.Errorf("DB_MAX_CONNS: %w", err))
		}
		cfg.DBMaxConns = int32(n)
	}
	if v := os.Getenv("LINK_KEY"); v != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("LINK_KEY is not base64: %w", err))
		}
		cfg.LinkKey = key
	}
	if v := os.Getenv("RAIL_ENCRYPTION_KEY"); v != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("RAIL_ENCRYPTION_KEY is not base64: %w", err))
		}
		cfg.RailEncryptionKey = key
	}
	errs = append(errs, envconf.Duration("CONTACTS_TIMEOUT", &cfg.ContactsTimeout), envconf.Duration("SCHEDULER_INTERVAL", &cfg.SchedulerInterval),
		envconf.Duration("STRIPE_TIMEOUT", &cfg.StripeTimeout))
	level, err := envconf.LogLevel()
	errs = append(errs, err)
	cfg.Logger = obs.NewLogger(serviceName, os.Stdout, level)
	return cfg, errors.Join(errs...)
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	for key, v := range map[string]string{"HTTP_ADDR": c.HTTPAddr, "INTERNAL_ADDR": c.InternalAddr,
		"DATABASE_URL": c.DatabaseURL, "IDENTITY_URL": c.IdentityURL, "CONTACTS_URL": c.ContactsURL} {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", key))
		}
	}
	if c.DBMaxConns < 2 {
		errs = append(errs, errors.New("DB_MAX_CONNS must be at least 2"))
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
