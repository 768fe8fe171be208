package contactssvc

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/peers"
	"github.com/paylane/paylane/libs/envconf"
	optinclient "github.com/paylane/paylane/optin-svc/client"
)

// Config is everything contacts-svc needs to run, read from the
// environment by ConfigFromEnv or built directly (devstack, tests).
// HTTPAddr serves /api/v1 (through the gateway) and /internal/v1.
type Config struct {
	envconf.Base
	// DefaultRegion reads national phone numbers of requests whose internal
	// token carries no tenant region (DEFAULT_REGION, "US").
	DefaultRegion string `env:"DEFAULT_REGION" envDefault:"US"`
	// OptInURL is optin-svc's base URL; a single contact read shows the
	// opt-in status and consents it answers. Empty: every contact reads as
	// "none" with no consents (a deployment without opt-in) (OPTIN_URL).
	OptInURL string `env:"OPTIN_URL"`
	// OptInCacheTTL is how long a single read may reuse optin-svc's answer
	// for a contact; optin-svc's events evict changed answers sooner (they
	// are followed when KafkaBrokers is set). 0 asks optin-svc on every
	// read (OPTIN_CACHE_TTL, 10s; at most 1m).
	OptInCacheTTL time.Duration `env:"OPTIN_CACHE_TTL" envDefault:"10s"`
	// OptInCacheSize bounds the answers kept per replica when
	// OptInCacheTTL > 0 (OPTIN_CACHE_SIZE, 50000).
	OptInCacheSize int `env:"OPTIN_CACHE_SIZE" envDefault:"50000"`
}

// Defaults of the configuration.
const (
	DefaultRegion = "US"
	jwksPath      = "/internal/v1/jwks"
	serviceName   = "contacts-svc"
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
	var cfg Config
	err := envconf.Parse(&cfg)
	cfg.DefaultRegion = strings.ToUpper(cfg.DefaultRegion)
	return cfg, err
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	errs := c.Check(envconf.Database | envconf.Identity)
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
