package dashboardsvc

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is everything dashboard-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /dashboard (HTTP_ADDR, ":8080").
	HTTPAddr string
	// HTTPListener, when set, is served instead of listening on HTTPAddr
	// (the devstack binds every service's address before any starts).
	HTTPListener net.Listener
	// InternalAddr serves /healthz, /readyz, /metrics, /debug/pprof (INTERNAL_ADDR, ":9090").
	InternalAddr string
	// DatabaseURL is the app role's DSN: the sessions (DATABASE_URL).
	DatabaseURL string
	// MigrateDatabaseURL is the owner's DSN; when set, Run migrates first (MIGRATE_DATABASE_URL).
	MigrateDatabaseURL string
	// DBMaxConns sizes the app pool (DB_MAX_CONNS, 10).
	DBMaxConns int32
	// IdentityURL is identity-svc's base URL: users, sign-in, tokens
	// (IDENTITY_URL, by libs/discovery).
	IdentityURL string
	// TransactionsURL is transactions-svc's base URL: the overview's counts
	// (TRANSACTIONS_URL, by libs/discovery).
	TransactionsURL string
	// WebhookURL is webhook-svc's base URL: the webhook endpoints page
	// (WEBHOOK_URL, by libs/discovery).
	WebhookURL string
	// ServiceSecret opens identity-svc's service-to-service routes (SERVICE_SECRET).
	ServiceSecret string
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
	DefaultHTTPAddr     = ":8080"
	DefaultInternalAddr = ":9090"
	DefaultDBMaxConns   = 10
	serviceName         = "dashboard-svc"
	minSecretLength     = 16
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
		IdentityURL:        envconf.Or(discovery.EnvVar("identity-svc"), discovery.DefaultURL("identity-svc")),
		TransactionsURL:    envconf.Or(discovery.EnvVar("transactions-svc"), discovery.DefaultURL("transactions-svc")),
		WebhookURL:         envconf.Or(discovery.EnvVar("webhook-svc"), discovery.DefaultURL("webhook-svc")),
		ServiceSecret:      os.Getenv("SERVICE_SECRET"),
	}
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			errs = append(errs, fmt.Errorf("DB_MAX_CONNS: %w", err))
		}
		cfg.DBMaxConns = int32(n)
	}
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
	need(c.HTTPAddr != "" || c.HTTPListener != nil, "HTTP_ADDR is required")
	need(c.InternalAddr != "", "INTERNAL_ADDR is required")
	need(c.DatabaseURL != "", "DATABASE_URL is required")
	need(c.DBMaxConns >= 1, "DB_MAX_CONNS must be at least 1")
	need(envconf.IsHTTPURL(c.IdentityURL), "IDENTITY_URL must be the http(s) base URL of identity-svc")
	need(envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	need(envconf.IsHTTPURL(c.WebhookURL), "WEBHOOK_URL must be the http(s) base URL of webhook-svc")
	need(len(c.ServiceSecret) >= minSecretLength, fmt.Sprintf("SERVICE_SECRET is required (at least %d characters)", minSecretLength))
	return errors.Join(errs...)
}
