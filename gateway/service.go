// Package gateway is Paylane's public edge: it terminates TLS, gives every
// request its id, checks the route against the OpenAPI document, resolves
// the bearer token through identity-svc, applies the rate limits and body
// limits, and forwards the request to the owning service with an internal
// JWT. A second listener serves the operator plane (/admin/v1) behind the
// admin token, and a third the internal endpoints (/healthz, /readyz,
// /metrics, pprof).
package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
)

// Defaults of the configuration (spec section 8 for the limits).
const (
	DefaultListenAddr       = ":8443"
	DefaultAdminAddr        = ":8444"
	DefaultInternalAddr     = ":9090"
	DefaultTokenPerMinute   = 60
	DefaultIPPerMinute      = 30
	DefaultWebhookPerMinute = 120
	// The hosted pages' own limits (contract section 1, revised): many
	// payers share one carrier IP.
	DefaultPageIPPerMinute   = 300
	DefaultPageLinkPerMinute = 30
	DefaultTokenCacheTTL     = 5 * time.Second
	// DefaultReadTimeout is the time a client has to send a whole request
	// (line, headers and body) once its first byte arrived; past it the
	// answer is 408.
	DefaultReadTimeout = 5 * time.Second
)

// Config is the gateway's configuration, read from the environment by
// ConfigFromEnv (names in README.md) or built directly (devstack, tests).
// Zero limits and TTL take their defaults in Run; the listen addresses of
// ConfigFromEnv default to the Default*Addr constants (tests pass
// 127.0.0.1:0). The gateway owns no database, and its public listener keeps
// its own variable (LISTEN_ADDR); Common gives the shared part to
// libs/svcrun.
type Config struct {
	// ListenAddr is the public listener (LISTEN_ADDR, ":8443").
	ListenAddr string `env:"LISTEN_ADDR" envDefault:":8443"`
	// AdminAddr is the operator plane's listener (ADMIN_ADDR, ":8444").
	AdminAddr string `env:"ADMIN_ADDR" envDefault:":8444"`
	// InternalAddr serves /healthz, /readyz, /metrics, pprof (INTERNAL_ADDR, ":9090").
	InternalAddr string `env:"INTERNAL_ADDR" envDefault:":9090"`
	// TLSCertFile and TLSKeyFile, both set, make the public and admin
	// listeners TLS 1.2+ (TLS_CERT_FILE, TLS_KEY_FILE).
	TLSCertFile string `env:"TLS_CERT_FILE"`
	TLSKeyFile  string `env:"TLS_KEY_FILE"`
	// IdentityURL is the base URL of identity-svc (token introspection) (IDENTITY_URL).
	IdentityURL string `env:"IDENTITY_URL"`
	// Routes send a path prefix to an upstream base URL (longest prefix
	// wins) (ROUTES); AdminRoutes the same for the admin listener (ADMIN_ROUTES).
	Routes      RouteTable `env:"ROUTES"`
	AdminRoutes RouteTable `env:"ADMIN_ROUTES"`
	// AdminToken guards the admin listener (ADMIN_TOKEN).
	AdminToken string `env:"ADMIN_TOKEN"`
	// RedisURL, when set, keeps rate-limit counters in Redis (shared by
	// every replica); otherwise they live in memory (REDIS_URL).
	RedisURL string `env:"REDIS_URL"`
	// KafkaBrokers carry token.revoked (KAFKA_BROKERS).
	KafkaBrokers []string `env:"KAFKA_BROKERS"`
	// Per-minute limits: per token (unless the tenant's own limit is set),
	// per IP without a valid token, per IP on /webhooks/
	// (RATE_LIMIT_TOKEN_PER_MINUTE 60, RATE_LIMIT_IP_PER_MINUTE 30,
	// RATE_LIMIT_WEBHOOK_PER_MINUTE 120).
	TokenPerMinute   int `env:"RATE_LIMIT_TOKEN_PER_MINUTE" envDefault:"60"`
	IPPerMinute      int `env:"RATE_LIMIT_IP_PER_MINUTE" envDefault:"30"`
	WebhookPerMinute int `env:"RATE_LIMIT_WEBHOOK_PER_MINUTE" envDefault:"120"`
	// Per-minute limits of the hosted pages (/l/...): per client IP, and per
	// payment or payout link (RATE_LIMIT_PAGE_IP_PER_MINUTE 300,
	// RATE_LIMIT_PAGE_LINK_PER_MINUTE 30).
	PageIPPerMinute   int `env:"RATE_LIMIT_PAGE_IP_PER_MINUTE" envDefault:"300"`
	PageLinkPerMinute int `env:"RATE_LIMIT_PAGE_LINK_PER_MINUTE" envDefault:"30"`
	// TokenCacheTTL bounds how long an introspection answer is reused (TOKEN_CACHE_TTL, 5s).
	TokenCacheTTL time.Duration `env:"TOKEN_CACHE_TTL" envDefault:"5s"`
	// ReadTimeout bounds reading a request on the public and admin
	// listeners (DefaultReadTimeout when 0): a client that announces more
	// body than it sends, or never ends its headers, gets 408 (READ_TIMEOUT, 5s).
	ReadTimeout time.Duration `env:"READ_TIMEOUT" envDefault:"5s"`
	// PublicBaseURL, when set, gives X-Forwarded-Proto and X-Forwarded-Host
	// (so links the services build never follow a client's Host header) and
	// the server URL of the served OpenAPI document (PUBLIC_BASE_URL).
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// LogLevel is debug, info, warn or error (LOG_LEVEL, info).
	LogLevel slog.Level `env:"LOG_LEVEL" envDefault:"info"`
	// Registrar, when set, registers this instance (the public listener's
	// port, with a health check on the internal listener's /readyz) at
	// start and deregisters it at stop; ConfigFromEnv sets Consul's when
	// CONSUL_HTTP_ADDR is set. Nil registers nowhere (Kubernetes, devstack,
	// tests).
	Registrar discovery.Registrar `env:"-"`
	// AdvertiseHost is the host the registration announces; empty means the
	// machine's host name.
	AdvertiseHost string `env:"-"`
}

// RouteTable is a route table as ROUTES and ADMIN_ROUTES write it (see
// ParseRoutes).
type RouteTable []Route

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *RouteTable) UnmarshalText(b []byte) error {
	routes, err := ParseRoutes(string(b))
	*t = routes
	return err
}

// Common is the part of the configuration every service shares, for
// libs/svcrun: the public listener is the HTTP one.
func (c Config) Common() envconf.Base {
	return envconf.Base{HTTPAddr: c.ListenAddr, InternalAddr: c.InternalAddr, KafkaBrokers: c.KafkaBrokers,
		IdentityURL: c.IdentityURL, LogLevel: c.LogLevel}
}

// Route sends every request whose path is Prefix or lies below it to
// Upstream (scheme://host[:port]), path and query unchanged.
type Route struct {
	Prefix, Upstream string
}

// Addrs are the bound addresses of the gateway's listeners.
type Addrs struct {
	Public, Admin, Internal string
}

// AddrsOf names the addresses svcrun reports (WithReady) by the gateway's
// listeners.
func AddrsOf(a svcrun.Addrs) Addrs {
	return Addrs{Public: a.HTTP, Admin: a.Servers[adminServer], Internal: a.Internal}
}

// ParseRoutes reads a route table written as
// "/api/v1/contacts=http://contacts-svc:8080,/l/r=http://transactions-svc:8080".
// Blank entries are ignored; a prefix given twice is an error.
func ParseRoutes(s string) ([]Route, error) {
	var routes []Route
	seen := map[string]bool{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		prefix, upstream, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("route %q: want prefix=upstream", entry)
		}
		r := Route{Prefix: strings.TrimSpace(prefix), Upstream: strings.TrimSpace(upstream)}
		if err := r.validate(); err != nil {
			return nil, err
		}
		if seen[r.Prefix] {
			return nil, fmt.Errorf("route %q: prefix given twice", r.Prefix)
		}
		seen[r.Prefix] = true
		routes = append(routes, r)
	}
	return routes, nil
}

func (r Route) validate() error {
	if !strings.HasPrefix(r.Prefix, "/") || strings.ContainsAny(r.Prefix, "?#") ||
		(len(r.Prefix) > 1 && strings.HasSuffix(r.Prefix, "/")) {
		return fmt.Errorf("route %q: the prefix must be a path starting with / and not ending with /", r.Prefix)
	}
	u, err := url.Parse(r.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("route %q: upstream %q must be http(s)://host[:port]", r.Prefix, r.Upstream)
	}
	return nil
}

// Validate reports the first problem of a configuration.
func (c Config) Validate() error {
	var errs []error
	if c.IdentityURL == "" {
		errs = append(errs, errors.New("IDENTITY_URL is required"))
	} else if u, err := url.Parse(c.IdentityURL); err != nil || u.Host == "" {
		errs = append(errs, fmt.Errorf("IDENTITY_URL %q is not an absolute URL", c.IdentityURL))
	}
	if c.AdminToken == "" {
		errs = append(errs, errors.New("ADMIN_TOKEN is required"))
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		errs = append(errs, errors.New("TLS_CERT_FILE and TLS_KEY_FILE go together"))
	}
	if c.PublicBaseURL != "" {
		if u, err := url.Parse(c.PublicBaseURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			errs = append(errs, fmt.Errorf("PUBLIC_BASE_URL %q is not an absolute http(s) URL", c.PublicBaseURL))
		}
	}
	for _, rs := range [][]Route{c.Routes, c.AdminRoutes} {
		for _, r := range rs {
			if err := r.validate(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if c.TokenPerMinute < 0 || c.IPPerMinute < 0 || c.WebhookPerMinute < 0 || c.PageIPPerMinute < 0 ||
		c.PageLinkPerMinute < 0 || c.TokenCacheTTL < 0 || c.ReadTimeout < 0 {
		errs = append(errs, errors.New("rate limits, TOKEN_CACHE_TTL and READ_TIMEOUT must not be negative"))
	}
	return errors.Join(errs...)
}

// withDefaults fills the zero limits and TTL.
func (c Config) withDefaults() Config {
	if c.TokenPerMinute == 0 {
		c.TokenPerMinute = DefaultTokenPerMinute
	}
	if c.IPPerMinute == 0 {
		c.IPPerMinute = DefaultIPPerMinute
	}
	if c.WebhookPerMinute == 0 {
		c.WebhookPerMinute = DefaultWebhookPerMinute
	}
	if c.PageIPPerMinute == 0 {
		c.PageIPPerMinute = DefaultPageIPPerMinute
	}
	if c.PageLinkPerMinute == 0 {
		c.PageLinkPerMinute = DefaultPageLinkPerMinute
	}
	if c.TokenCacheTTL == 0 {
		c.TokenCacheTTL = DefaultTokenCacheTTL
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	return c
}
