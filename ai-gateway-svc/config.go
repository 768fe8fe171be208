package aigatewaysvc

import (
	"errors"
	"log/slog"
	"net"
	"os"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is everything ai-gateway-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests). It has
// no database: the service owns no data and calls the others.
type Config struct {
	// HTTPAddr serves /api/v1/gateway (HTTP_ADDR, ":8080").
	HTTPAddr string
	// HTTPListener, when set, is served instead of listening on HTTPAddr
	// (the devstack binds every service's address before any starts).
	HTTPListener net.Listener
	// InternalAddr serves /healthz, /readyz, /metrics, /debug/pprof (INTERNAL_ADDR, ":9090").
	InternalAddr string
	// IdentityURL is identity-svc's base URL: the keys of internal tokens
	// (IDENTITY_URL, by libs/discovery).
	IdentityURL string
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL, by libs/discovery).
	ContactsURL string
	// TransactionsURL is transactions-svc's base URL (TRANSACTIONS_URL, by libs/discovery).
	TransactionsURL string
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
	serviceName         = "ai-gateway-svc"
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		HTTPAddr:        envconf.Or("HTTP_ADDR", DefaultHTTPAddr),
		InternalAddr:    envconf.Or("INTERNAL_ADDR", DefaultInternalAddr),
		IdentityURL:     peerURL("identity-svc"),
		ContactsURL:     peerURL("contacts-svc"),
		TransactionsURL: peerURL("transactions-svc"),
	}
	var errs []error
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
	need(envconf.IsHTTPURL(c.IdentityURL), "IDENTITY_URL must be the http(s) base URL of identity-svc")
	need(envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
	need(envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	return errors.Join(errs...)
}

// peerURL is the base URL of a service ai-gateway-svc calls: its
// environment variable (libs/discovery's name for it), else its Kubernetes
// Service.
func peerURL(service string) string {
	return envconf.Or(discovery.EnvVar(service), discovery.DefaultURL(service))
}
