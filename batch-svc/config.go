package batchsvc

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/peers"
	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is everything batch-svc needs to run, filled from the environment
// by ConfigFromEnv or built directly (devstack, tests).
type Config struct {
	// HTTPAddr serves /api/v1 (HTTP_ADDR, ":8080").
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
	// KafkaBrokers carry the outbox's events; empty runs no relay (KAFKA_BROKERS).
	KafkaBrokers []string
	// IdentityURL is identity-svc's base URL: the keys of internal tokens
	// and the service tokens of the workers (IDENTITY_URL, by libs/discovery).
	IdentityURL string
	// ServiceSecret authenticates service-token requests to identity-svc (SERVICE_SECRET).
	ServiceSecret string
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL, by libs/discovery).
	ContactsURL string
	// TransactionsURL is transactions-svc's base URL (TRANSACTIONS_URL, by libs/discovery).
	TransactionsURL string
	// PublicBaseURL starts the links in the summary events' headers, e.g.
	// https://api.paylane.example (PUBLIC_BASE_URL; empty: relative links).
	PublicBaseURL string
	// Workers is how many batches one replica processes at once (BATCH_WORKERS, 2).
	Workers int
	// Lease is how long a worker's claim on a batch holds without renewal;
	// a crashed worker's batch resumes elsewhere after it (BATCH_LEASE, "30s").
	Lease time.Duration
	// PollInterval is how often idle workers look for batches queued by
	// other replicas (BATCH_POLL_INTERVAL, "1s"); local submissions wake them at once.
	PollInterval time.Duration
	// RetryBase is the first delay before a chunk is sent again after a
	// transient failure; each later one doubles, up to 30 s (BATCH_RETRY_BASE, "1s").
	RetryBase time.Duration
	// RetryFor bounds the retries of a chunk's write: a downstream that
	// fails transiently for this long counts as down and the batch ends
	// failed, freeing the tenant's in-flight slot (BATCH_RETRY_FOR, "1h").
	// Zero means DefaultRetryFor: configurations built in code before the
	// bound existed (the devstack's) keep working.
	RetryFor time.Duration
	// SubmissionsPerMinute and InFlight are the tenant limits' defaults,
	// for tenants without their own (BATCH_SUBMISSIONS_PER_MINUTE, 10;
	// BATCHES_IN_FLIGHT, 2).
	SubmissionsPerMinute, InFlight int

	// Tokens, when set, replaces identity-svc's service tokens (tests).
	Tokens peers.Tokens
	// Logger receives the service's logs (built from LOG_LEVEL by ConfigFromEnv).
	Logger *slog.Logger
	// Ready, when set, is called with the bound addresses once every listener is up.
	Ready func(Addrs)
}

// Writer is what a batch type is written through (see app.Writer).
type Writer = app.Writer

// Addrs are the addresses Run listens on.
type Addrs struct {
	HTTP, Internal string
}

// Defaults of the configuration.
const (
	DefaultHTTPAddr     = ":8080"
	DefaultInternalAddr = ":9090"
	DefaultDBMaxConns   = 10
	DefaultWorkers      = 2
	DefaultLease        = 30 * time.Second
	DefaultPollInterval = time.Second
	DefaultRetryBase    = time.Second
	DefaultRetryFor     = time.Hour
	// MaxRetryFor keeps retries well inside the 7 days for which
	// contacts-svc and transactions-svc keep a chunk's row records: a retry
	// after they are deleted would write the chunk's rows again.
	MaxRetryFor                 = 72 * time.Hour
	DefaultSubmissionsPerMinute = 10
	DefaultInFlight             = 2
	serviceName                 = "batch-svc"
)

// Defaults is the configuration with every setting that has a default set
// to it (addresses, pool size, workers, retries, limits); the rest (database,
// peers, secrets) is left for the caller.
func Defaults() Config {
	return Config{
		HTTPAddr:             DefaultHTTPAddr,
		InternalAddr:         DefaultInternalAddr,
		DBMaxConns:           DefaultDBMaxConns,
		Workers:              DefaultWorkers,
		Lease:                DefaultLease,
		PollInterval:         DefaultPollInterval,
		RetryBase:            DefaultRetryBase,
		RetryFor:             DefaultRetryFor,
		SubmissionsPerMinute: DefaultSubmissionsPerMinute,
		InFlight:             DefaultInFlight,
	}
}

// ConfigFromEnv reads the configuration from the environment over
// Defaults. It fails on values that cannot be parsed; Validate (called by
// Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	cfg := Defaults()
	cfg.HTTPAddr = envconf.Or("HTTP_ADDR", cfg.HTTPAddr)
	cfg.InternalAddr = envconf.Or("INTERNAL_ADDR", cfg.InternalAddr)
	cfg.DatabaseURL, cfg.MigrateDatabaseURL = os.Getenv("DATABASE_URL"), os.Getenv("MIGRATE_DATABASE_URL")
	cfg.KafkaBrokers = envconf.List(os.Getenv("KAFKA_BROKERS"))
	cfg.IdentityURL, cfg.ServiceSecret = peerURL("identity-svc"), os.Getenv("SERVICE_SECRET")
	cfg.ContactsURL, cfg.TransactionsURL = peerURL("contacts-svc"), peerURL("transactions-svc")
	cfg.PublicBaseURL = os.Getenv("PUBLIC_BASE_URL")
	var errs []error
	if v := os.Getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		errs = envconf.AppendErr(errs, "DB_MAX_CONNS", err)
		cfg.DBMaxConns = int32(n)
	}
	errs = append(errs, envconf.Int("BATCH_WORKERS", &cfg.Workers), envconf.Int("BATCH_SUBMISSIONS_PER_MINUTE", &cfg.SubmissionsPerMinute),
		envconf.Int("BATCHES_IN_FLIGHT", &cfg.InFlight), envconf.Duration("BATCH_LEASE", &cfg.Lease),
		envconf.Duration("BATCH_POLL_INTERVAL", &cfg.PollInterval), envconf.Duration("BATCH_RETRY_BASE", &cfg.RetryBase),
		envconf.Duration("BATCH_RETRY_FOR", &cfg.RetryFor))
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
	need(envconf.IsHTTPURL(c.ContactsURL), "CONTACTS_URL must be the http(s) base URL of contacts-svc")
	need(c.TransactionsURL == "" || envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	need(c.Tokens != nil || c.ServiceSecret != "", "SERVICE_SECRET is required (the workers' service tokens at identity-svc)")
	need(c.PublicBaseURL == "" || envconf.IsHTTPURL(c.PublicBaseURL), "PUBLIC_BASE_URL must be an http(s) URL")
	need(c.Workers >= 1, "BATCH_WORKERS must be at least 1")
	need(c.Lease >= time.Second, "BATCH_LEASE must be at least 1s")
	need(c.PollInterval > 0, "BATCH_POLL_INTERVAL must be positive")
	need(c.RetryBase > 0, "BATCH_RETRY_BASE must be positive")
	need(c.RetryFor >= 0 && c.RetryFor <= MaxRetryFor,
		"BATCH_RETRY_FOR must be between 0 and 72h (contacts-svc and transactions-svc keep a chunk's row records 7 days)")
	need(c.SubmissionsPerMinute >= 1, "BATCH_SUBMISSIONS_PER_MINUTE must be at least 1")
	need(c.InFlight >= 1, "BATCHES_IN_FLIGHT must be at least 1")
	return errors.Join(errs...)
}

// peerURL is the base URL of a service batch-svc calls: its environment
// variable (libs/discovery's name for it), else its Kubernetes Service.
func peerURL(service string) string {
	return envconf.Or(discovery.EnvVar(service), discovery.DefaultURL(service))
}
