package batchsvc

import (
	"errors"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
)

// Config is everything batch-svc needs to run, read from the environment
// by ConfigFromEnv or built directly (devstack, tests). HTTPAddr serves
// /api/v1; IdentityURL also issues the workers' service tokens; the peers'
// URLs default to their Kubernetes Services (libs/discovery).
type Config struct {
	envconf.Base
	// ServiceSecret authenticates service-token requests to identity-svc (SERVICE_SECRET).
	ServiceSecret string `env:"SERVICE_SECRET"`
	// ContactsURL is contacts-svc's base URL (CONTACTS_URL).
	ContactsURL string `env:"CONTACTS_URL"`
	// TransactionsURL is transactions-svc's base URL (TRANSACTIONS_URL).
	TransactionsURL string `env:"TRANSACTIONS_URL"`
	// PublicBaseURL starts the links in the summary events' headers, e.g.
	// https://api.paylane.example (PUBLIC_BASE_URL; empty: relative links).
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// Workers is how many batches one replica processes at once (BATCH_WORKERS, 2).
	Workers int `env:"BATCH_WORKERS" envDefault:"2"`
	// Lease is how long a worker's claim on a batch holds without renewal;
	// a crashed worker's batch resumes elsewhere after it (BATCH_LEASE, "30s").
	Lease time.Duration `env:"BATCH_LEASE" envDefault:"30s"`
	// PollInterval is how often idle workers look for batches queued by
	// other replicas (BATCH_POLL_INTERVAL, "1s"); local submissions wake them at once.
	PollInterval time.Duration `env:"BATCH_POLL_INTERVAL" envDefault:"1s"`
	// RetryBase is the first delay before a chunk is sent again after a
	// transient failure; each later one doubles, up to 30 s (BATCH_RETRY_BASE, "1s").
	RetryBase time.Duration `env:"BATCH_RETRY_BASE" envDefault:"1s"`
	// RetryFor bounds the retries of a chunk's write: a downstream that
	// fails transiently for this long counts as down and the batch ends
	// failed, freeing the tenant's in-flight slot (BATCH_RETRY_FOR, "1h").
	// Zero means DefaultRetryFor.
	RetryFor time.Duration `env:"BATCH_RETRY_FOR" envDefault:"1h"`
	// SubmissionsPerMinute and InFlight are the tenant limits' defaults,
	// for tenants without their own (BATCH_SUBMISSIONS_PER_MINUTE, 10;
	// BATCHES_IN_FLIGHT, 2).
	SubmissionsPerMinute int `env:"BATCH_SUBMISSIONS_PER_MINUTE" envDefault:"10"`
	InFlight             int `env:"BATCHES_IN_FLIGHT" envDefault:"2"`
}

// Writer is what a batch type is written through (see app.Writer).
type Writer = app.Writer

// Defaults of the configuration.
const (
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
// to it (addresses, pool size, peers' URLs, workers, retries, limits), as
// ConfigFromEnv reads an empty environment; the rest (database, secrets)
// is left for the caller.
func Defaults() Config {
	var cfg Config
	_ = fromEnv(&cfg, map[string]string{})
	return cfg
}

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	err := fromEnv(&cfg, nil)
	return cfg, err
}

// fromEnv sets the peers' Kubernetes URLs, then reads the environment
// (environ replaces it when not nil) over them.
func fromEnv(cfg *Config, environ map[string]string) error {
	cfg.IdentityURL = discovery.DefaultURL("identity-svc")
	cfg.ContactsURL = discovery.DefaultURL("contacts-svc")
	cfg.TransactionsURL = discovery.DefaultURL("transactions-svc")
	if environ != nil {
		return envconf.ParseFrom(cfg, environ)
	}
	return envconf.Parse(cfg)
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
	need(c.TransactionsURL == "" || envconf.IsHTTPURL(c.TransactionsURL), "TRANSACTIONS_URL must be the http(s) base URL of transactions-svc")
	need(c.ServiceSecret != "", "SERVICE_SECRET is required (the workers' service tokens at identity-svc)")
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
