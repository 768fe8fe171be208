package identitysvc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
)

// Config is everything identity-svc needs to run, read from the
// environment by ConfigFromEnv or built directly (devstack, tests). HTTPAddr
// serves the internal API and the admin plane.
type Config struct {
	envconf.Base
	// SigningKey is the 32-byte Ed25519 seed of internal tokens (SIGNING_KEY, base64).
	SigningKey envconf.Bytes `env:"SIGNING_KEY"`
	// AdminToken opens the operator plane (ADMIN_TOKEN).
	AdminToken string `env:"ADMIN_TOKEN"`
	// ServiceSecret opens the service-to-service routes (service tokens,
	// tenant lookups) to other services (SERVICE_SECRET); empty, those
	// routes answer 404.
	ServiceSecret string `env:"SERVICE_SECRET"`
	// InternalTokenTTL is the lifetime of internal tokens (INTERNAL_TOKEN_TTL, 60s).
	InternalTokenTTL time.Duration `env:"INTERNAL_TOKEN_TTL" envDefault:"60s"`
	// PublicBaseURL is the public origin the dashboard's set-password links
	// start with, e.g. https://api.example.com (PUBLIC_BASE_URL); empty,
	// the links are paths on the public host.
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// Registrar, when set, registers this instance (its HTTP port, with a
	// health check on the internal listener's /readyz) at start and
	// deregisters it at stop. ConfigFromEnv sets Consul's when
	// CONSUL_HTTP_ADDR is set (CONSUL_HTTP_TOKEN its ACL token); nil
	// registers nowhere (Kubernetes, devstack, tests).
	Registrar discovery.Registrar `env:"-"`
	// AdvertiseHost is the host the registration announces; empty means the
	// machine's host name.
	AdvertiseHost string `env:"-"`
}

// Defaults of the configuration.
const (
	DefaultInternalTokenTTL = 60 * time.Second
	maxInternalTokenTTL     = time.Hour
	signingKeySize          = 32
	minServiceSecretLength  = 16
)

// ConfigFromEnv reads the configuration from the environment. It fails on
// values that cannot be parsed; Validate (called by Run) checks the rest.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	err := envconf.Parse(&cfg)
	registrar, rerr := svcrun.RegistrarFromEnv(os.LookupEnv)
	cfg.Registrar = registrar
	return cfg, errors.Join(err, rerr)
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Database)
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
	if c.PublicBaseURL != "" && !envconf.IsHTTPURL(c.PublicBaseURL) {
		errs = append(errs, fmt.Errorf("PUBLIC_BASE_URL %q is not an absolute http(s) URL", c.PublicBaseURL))
	}
	return errors.Join(errs...)
}
