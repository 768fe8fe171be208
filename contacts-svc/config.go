package contacts

import (
	"errors"
	"fmt"
	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/peers"
	optinclient "github.com/paylane/paylane/optin-svc/client"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is everything contacts-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /api/v1 (through the gateway) and /internal/v1 (HTTP_ADDR, ":8080").
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
	// KafkaBrokers receive the outbox's events; empty runs no relay (KAFKA_BROKERS).
	KafkaBrokers []string
	// IdentityURL is identity-svc's base URL; internal tokens are verified
	// with the keys of IdentityURL/internal/v1/jwks (IDENTITY_URL).
	IdentityURL string
	// DefaultRegion reads national phone numbers of requests whose internal
	// token carries no tenant region (DEFAULT_REGION, "US").
	DefaultRegion string
	// OptInURL is optin-svc's base URL; a single contact read shows the
	// opt-in status and consents it answers. Empty: every contact reads as
	// "none" with no consents (a deployment without opt-in) (OPTIN_URL).
	OptInURL string
	// OptInCacheTTL is how long a single read may reuse optin-svc's answer
	// for a contact; optin-svc's events evict changed answers sooner (they
	// are followed when KafkaBrokers is set). 0 asks optin-svc on every
	// read (OPTIN_CACHE_TTL, 10s; at most 1m).
	OptInCacheTTL time.Duration
	// OptInCacheSize bounds the answers kept per replica when
	// OptInCacheTTL > 0 (OPTIN_CACHE_SIZE, 50000).
	OptInCacheSize int
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
	DefaultHTTPAddr      = ":8080"
	DefaultInternalAddr  = ":9090"
	DefaultDBMaxConns    = 10
	DefaultRegion        = "US"
	jwksPath             = "/internal/v1/jwks"
	serviceName          = "contacts-svc"
	maxDBConnsConfigured = 1000
	// DefaultOptInCacheTTL bounds how stale a single read's opt-in status
	// may be when no event announces the change.
	DefaultOptInCacheTTL  = 10 * time.Second
	DefaultOptInCacheSize = 50_000
	maxOptInCacheTTL      = time.Minute
	maxOptInCacheSize     = 10_000_000
)

var regionPattern = regexp.MustCompile(`^[A-Z]{2}$`)

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
		OptInURL:           os.Getenv("OPTIN_URL"),
		IdentityURL:        os.Getenv("IDENTITY_URL"),
		DefaultRegion:      strings.ToUpper(envconf.Or("DEFAULT_REGION", DefaultRegion)),
		OptInCacheTTL:      DefaultOptInCacheTTL,
		OptInCacheSize:     DefaultOptInCacheSize,
	}
	var errs []error
	if v := os.Getenv("OPTIN_CACHE_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OPTIN_CACHE_TTL: %w", err))
		}
		cfg.OptInCacheTTL = d
	}
	if v := os.Getenv("OPTIN_CACHE_SIZE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OPTIN_CACHE_SIZE: %w", err))
		}
		cfg.OptInCacheSize = n
	}
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
	if c.HTTPAddr == "" {
		errs = append(errs, errors.New("HTTP_ADDR is required"))
	}
	if c.InternalAddr == "" {
		errs = append(errs, errors.New("INTERNAL_ADDR is required"))
	}
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("DATABASE_URL is required"))
	}
	if c.DBMaxConns < 1 || c.DBMaxConns > maxDBConnsConfigured {
		errs = append(errs, fmt.Errorf("DB_MAX_CONNS must be between 1 and %d", maxDBConnsConfigured))
	}
	if !strings.HasPrefix(c.IdentityURL, "http://") && !strings.HasPrefix(c.IdentityURL, "https://") {
		errs = append(errs, errors.New("IDENTITY_URL must be the http(s) base URL of identity-svc"))
	}
	if !regionPattern.MatchString(c.DefaultRegion) {
		errs = append(errs, errors.New("DEFAULT_REGION must be an ISO 3166-1 alpha-2 code such as US"))
	}
	if c.OptInCacheTTL < 0 || c.OptInCacheTTL > maxOptInCacheTTL {
		errs = append(errs, fmt.Errorf("OPTIN_CACHE_TTL must be between 0 (no cache) and %s", maxOptInCacheTTL))
	}
	if c.OptInCacheTTL > 0 && (c.OptInCacheSize < 1 || c.OptInCacheSize > maxOptInCacheSize) {
		errs = append(errs, fmt.Errorf("OPTIN_CACHE_SIZE must be between 1 and %d", maxOptInCacheSize))
	}
	return errors.Join(errs...)
}

// jwksURL is where identity-svc publishes the keys of internal tokens.
func (c Config) jwksURL() string { return strings.TrimRight(c.IdentityURL, "/") + jwksPath }

// optIns is where a single contact read gets its opt-in standing, and the
// cache in front of optin-svc when there is one (nil otherwise).
func (c Config) optIns() (app.OptIns, *peers.Cache) {
	if c.OptInURL == "" {
		return app.NoOptIns{}, nil
	}
	// Every single read asks optin-svc: keep enough idle connections for a
	// busy service (the default transport keeps two per host and redials).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256
	remote := peers.NewRemote(optinclient.New(c.OptInURL, &http.Client{Transport: tr, Timeout: 5 * time.Second}))
	if c.OptInCacheTTL <= 0 {
		return remote, nil
	}
	cache := peers.NewCache(remote, c.OptInCacheTTL, c.OptInCacheSize)
	return cache, cache
}
