package identity

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is everything identity-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr is the listener of the internal API and the admin plane (HTTP_ADDR, ":8080").
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
	// SigningKey is the 32-byte Ed25519 seed of internal tokens (SIGNING_KEY, base64).
	SigningKey []byte
	// AdminToken opens the operator plane (ADMIN_TOKEN).
	AdminToken string
	// ServiceSecret opens the service-to-service routes (service tokens,
	// tenant lookups) to other services (SERVICE_SECRET); empty, those
	// routes answer 404.
	ServiceSecret string
	// InternalTokenTTL is the lifetime of internal tokens (INTERNAL_TOKEN_TTL, 60s).
	InternalTokenTTL time.Duration
	// PublicBaseURL is the public origin the dashboard's set-password links
	// start with, e.g. https://api.example.com (PUBLIC_BASE_URL); empty,
	// the links are paths on the public host.
	PublicBaseURL string
	// Registrar, when set, registers this instance (its HTTP port, with a
	// health check on the internal listener's /readyz) at start and
	// deregisters it at stop. ConfigFromEnv sets Consul's when
	// CONSUL_HTTP_ADDR is set (CONSUL_HTTP_TOKEN its ACL token); nil
	// registers nowhere (Kubernetes, devstack, tests).
	Registrar discovery.Registrar
	// AdvertiseHost is the host the registration announces; empty means the
	// machine's host name.
	AdvertiseHost string
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
	DefaultHTTPAddr         = ":8080"
	DefaultInternalAddr     = ":9090"
	DefaultDBMaxConns       = 10
	DefaultInternalTokenTTL = 60 * time.Second
	maxInternalTokenTTL     = time.Hour
	signingKeySize          = 32
	minServiceSecretLength  = 16
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
		AdminToken:         os.Getenv("ADMIN_TOKEN"),
		ServiceSecret:      os.Getenv("SERVICE_SECRET"),
		PublicBaseURL:      os.Getenv("PUBLIC_BASE_URL"),
		InternalTokenTTL:   DefaultInternalTokenTTL,
	}
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			errs = append(errs, fmt.Errorf("DB_MAX_CONNS: %w", err))
		}
		cfg.DBMaxConns = int32(n)
	}
	if v := os.Getenv("SIGNING_KEY"); v != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("SIGNING_KEY is not base64: %w", err))
		}
		cfg.SigningKey = key
	}
	if v := os.Getenv("INTERNAL_TOKEN_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("INTERNAL_TOKEN_TTL: %w", err))
		}
		cfg.InternalTokenTTL = d
	}
	registrar, err := registrarFromEnv(os.LookupEnv)
	if err != nil {
		errs = append(errs, err)
	}
	cfg.Registrar = registrar
	level, err := envconf.LogLevel()
	errs = append(errs, err)
	cfg.Logger = obs.NewLogger("identity-svc", os.Stdout, level)
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
	if c.DBMaxConns < 1 {
		errs = append(errs, errors.New("DB_MAX_CONNS must be at least 1"))
	}
	if len(c.SigningKey) != signingKeySize {
		errs = append(errs, fmt.Errorf("SIGNING_KEY must be the base64 of a %d-byte Ed25519 seed", signingKeySize))
	}
	if c.AdminToken == "" {
		errs = append(errs, errors.New("ADMIN_TOKEN is required"))
	}
	if c.ServiceSecret != "" && len(c.ServiceSecret) < minServiceSecretLength {
		errs = append(errs, fmt.Errorf("SERVICE_SECRET must be at least %d characters", minServiceSecretLength))
	}
	if c.InternalTokenTTL <= 0 || c.InternalTokenTTL > maxInternalTokenTTL {
		errs = append(errs, fmt.Errorf("INTERNAL_TOKEN_TTL must be positive and at most %s", maxInternalTokenTTL))
	}
	if c.PublicBaseURL != "" {
		if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("PUBLIC_BASE_URL %q is not an absolute http(s) URL", c.PublicBaseURL))
		}
	}
	return errors.Join(errs...)
}
