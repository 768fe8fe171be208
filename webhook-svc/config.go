package webhooksvc

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
)

// Config is everything webhook-svc needs to run, read from the environment
// by ConfigFromEnv or built directly (devstack, tests). HTTPAddr serves
// /api/v1/webhook-endpoints; KafkaBrokers are read for events (empty: no
// consumer).
type Config struct {
	envconf.Base
	// EncryptionKey seals signing secrets at rest: 32 bytes (WEBHOOK_ENCRYPTION_KEY, base64).
	EncryptionKey envconf.Bytes `env:"WEBHOOK_ENCRYPTION_KEY"`
	// AllowCIDRs are destinations deliveries may reach although they are
	// private, loopback or otherwise reserved (WEBHOOK_ALLOW_CIDRS, comma
	// list of prefixes or addresses; empty allows none).
	AllowCIDRs CIDRs `env:"WEBHOOK_ALLOW_CIDRS"`
	// ExtraCAFile is a PEM file of CAs trusted besides the system's
	// (WEBHOOK_EXTRA_CA_FILE).
	ExtraCAFile string `env:"WEBHOOK_EXTRA_CA_FILE"`
	// Consumers is the number of consumer-group members per replica; each
	// handles its share of the topics' partitions in batches (up to 500
	// events, each tenant's share in one transaction) (WEBHOOK_CONSUMERS, 3).
	Consumers int `env:"WEBHOOK_CONSUMERS" envDefault:"3"`
	// DispatchConcurrency bounds the deliveries in flight per replica
	// (WEBHOOK_DISPATCH_CONCURRENCY, 64).
	DispatchConcurrency int `env:"WEBHOOK_DISPATCH_CONCURRENCY" envDefault:"64"`
	// PollInterval is how often the dispatcher polls the queue besides
	// being woken in-process by the ingester: deliveries other replicas
	// queued and retries that came due (WEBHOOK_POLL_INTERVAL, 250ms).
	PollInterval time.Duration `env:"WEBHOOK_POLL_INTERVAL" envDefault:"250ms"`
	// RetryTimeScale multiplies the retry schedule's waits and the
	// endpoint breaker's open time (WEBHOOK_RETRY_TIME_SCALE, 1): fault
	// tests compress time with a factor below 1; production keeps 1.
	RetryTimeScale float64 `env:"WEBHOOK_RETRY_TIME_SCALE" envDefault:"1"`
}

// CIDRs is a comma list of prefixes or single addresses (WEBHOOK_ALLOW_CIDRS).
type CIDRs []netip.Prefix

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CIDRs) UnmarshalText(b []byte) error {
	allow, err := netguard.ParseAllow(string(b))
	*c = allow
	return err
}

// Defaults of the configuration.
const (
	DefaultDispatchConcurrency = 64
	DefaultConsumers           = 3
	DefaultPollInterval        = 250 * time.Millisecond
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	err := envconf.Parse(&cfg)
	return cfg, err
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Database)
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
