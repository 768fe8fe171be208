package webhooksvc

import (
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
)

// Config is everything webhook-svc needs to run, filled from the
// environment by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /api/v1/webhook-endpoints (HTTP_ADDR, ":8080").
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
	// KafkaBrokers are read for events; empty runs no consumer (KAFKA_BROKERS).
	KafkaBrokers []string
	// IdentityURL is identity-svc's base URL, for the JWKS of internal tokens (IDENTITY_URL).
	IdentityURL string
	// EncryptionKey seals signing secrets at rest: 32 bytes (WEBHOOK_ENCRYPTION_KEY, base64).
	EncryptionKey []byte
	// AllowCIDRs are destinations deliveries may reach although they are
	// private, loopback or otherwise reserved (WEBHOOK_ALLOW_CIDRS, comma
	// list of prefixes or addresses; empty allows none).
	AllowCIDRs []netip.Prefix
	// ExtraCAFile is a PEM file of CAs trusted besides the system's
	// (WEBHOOK_EXTRA_CA_FILE).
	ExtraCAFile string
	// ExtraRootCAs, when set, replaces the system roots as the base trust
	// store (devstack passes a pool of its own CA); ExtraCAFile adds to it.
	ExtraRootCAs *x509.CertPool
	// Consumers is the number of consumer-group members per replica; each
	// handles its share of the topics' partitions in batches (up to 500
	// events, each tenant's share in one transaction) (WEBHOOK_CONSUMERS, 3).
	Consumers int
	// DispatchConcurrency bounds the deliveries in flight per replica
	// (WEBHOOK_DISPATCH_CONCURRENCY, 64).
	DispatchConcurrency int
	// PollInterval is how often the dispatcher polls the queue besides
	// being woken in-process by the ingester: deliveries other replicas
	// queued and retries that came due (WEBHOOK_POLL_INTERVAL, 250ms).
	PollInterval time.Duration
	// RetryTimeScale multiplies the retry schedule's waits and the
	// endpoint breaker's open time (WEBHOOK_RETRY_TIME_SCALE, 1): fault
	// tests compress time with a factor below 1; production keeps 1.
	RetryTimeScale float64
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
	DefaultHTTPAddr            = ":8080"
	DefaultInternalAddr        = ":9090"
	DefaultDBMaxConns          = 10
	DefaultDispatchConcurrency = 64
	DefaultConsumers           = 3
	DefaultPollInterval        = 250 * time.Millisecond
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		HTTPAddr:            envconf.Or("HTTP_ADDR", DefaultHTTPAddr),
		InternalAddr:        envconf.Or("INTERNAL_ADDR", DefaultInternalAddr),
		DatabaseURL:         os.Getenv("DATABASE_URL"),
		MigrateDatabaseURL:  os.Getenv("MIGRATE_DATABASE_URL"),
		DBMaxConns:          DefaultDBMaxConns,
		KafkaBrokers:        envconf.List(os.Getenv("KAFKA_BROKERS")),
		IdentityURL:         os.Getenv("IDENTITY_URL"),
		ExtraCAFile:         os.Getenv("WEBHOOK_EXTRA_CA_FILE"),
		DispatchConcurrency: DefaultDispatchConcurrency,
		Consumers:           DefaultConsumers,
		PollInterval:        DefaultPollInterval,
		RetryTimeScale:      1,
	}
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		errs = envconf.AppendErr(errs, "DB_MAX_CONNS", err)
		cfg.DBMaxConns = int32(n)
	}
	if v := os.Getenv("WEBHOOK_ENCRYPTION_KEY"); v != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		errs = envconf.AppendErr(errs, "WEBHOOK_ENCRYPTION_KEY is not base64", err)
		cfg.EncryptionKey = key
	}
	allow, err := netguard.ParseAllow(os.Getenv("WEBHOOK_ALLOW_CIDRS"))
	errs = envconf.AppendErr(errs, "WEBHOOK_ALLOW_CIDRS", err)
	cfg.AllowCIDRs = allow
	if v := os.Getenv("WEBHOOK_DISPATCH_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		errs = envconf.AppendErr(errs, "WEBHOOK_DISPATCH_CONCURRENCY", err)
		cfg.DispatchConcurrency = n
	}
	if v := os.Getenv("WEBHOOK_CONSUMERS"); v != "" {
		n, err := strconv.Atoi(v)
		errs = envconf.AppendErr(errs, "WEBHOOK_CONSUMERS", err)
		cfg.Consumers = n
	}
	if v := os.Getenv("WEBHOOK_POLL_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		errs = envconf.AppendErr(errs, "WEBHOOK_POLL_INTERVAL", err)
		cfg.PollInterval = d
	}
	if v := os.Getenv("WEBHOOK_RETRY_TIME_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		errs = envconf.AppendErr(errs, "WEBHOOK_RETRY_TIME_SCALE", err)
		cfg.RetryTimeScale = f
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
	if c.DBMaxConns < 1 {
		errs = append(errs, errors.New("DB_MAX_CONNS must be at least 1"))
	}
	if c.IdentityURL == "" {
		errs = append(errs, errors.New("IDENTITY_URL is required (the JWKS of internal tokens)"))
	}
	if len(c.EncryptionKey) != sealer.KeySize {
		errs = append(errs, fmt.Errorf("WEBHOOK_ENCRYPTION_KEY must be the base64 of %d bytes", sealer.KeySize))
	}
	if c.DispatchConcurrency < 1 {
		errs = append(errs, errors.New("WEBHOOK_DISPATCH_CONCURRENCY must be at least 1"))
	}
	if len(c.KafkaBrokers) > 0 && c.Consumers < 1 {
		errs = append(errs, errors.New("WEBHOOK_CONSUMERS must be at least 1"))
	}
	if c.PollInterval <= 0 {
		errs = append(errs, errors.New("WEBHOOK_POLL_INTERVAL must be positive"))
	}
	if c.RetryTimeScale < 0 || c.RetryTimeScale > 1 {
		errs = append(errs, errors.New("WEBHOOK_RETRY_TIME_SCALE must be in (0, 1]"))
	}
	return errors.Join(errs...)
}
