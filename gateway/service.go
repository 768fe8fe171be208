// Package gateway is Paylane's public edge: it terminates TLS, gives every
// request its id, checks the route against the OpenAPI document, resolves
// the bearer token through identity-svc, applies the rate limits and body
// limits, and forwards the request to the owning service with an internal
// JWT. A second listener serves the operator plane (/admin/v1) behind the
// admin token, and a third the internal endpoints (/healthz, /readyz,
// /metrics, pprof).
package gateway

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/discovery"
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

// Config is the gateway's configuration. Zero limits and TTL take their
// defaults in Run; the listen addresses of ConfigFromEnv default to the
// Default*Addr constants (tests pass 127.0.0.1:0).
type Config struct {
	ListenAddr string // public listener
	// PublicListener, when set, is served (behind TLS when configured)
	// instead of listening on ListenAddr: the devstack binds it before the
	// services start, since they learn the public URL first.
	PublicListener net.Listener
	AdminAddr      string // operator plane listener
	InternalAddr   string // /healthz, /readyz, /metrics, pprof
	// TLSCertFile and TLSKeyFile, both set, make the public and admin
	// listeners TLS 1.2+.
	TLSCertFile, TLSKeyFile string
	// IdentityURL is the base URL of identity-svc (token introspection).
	IdentityURL string
	// Routes send a path prefix to an upstream base URL (longest prefix
	// wins); AdminRoutes the same for the admin listener.
	Routes, AdminRoutes []Route
	// AdminToken guards the admin listener.
	AdminToken string
	// RedisURL, when set, keeps rate-limit counters in Redis (shared by
	// every replica); otherwise they live in memory.
	RedisURL     string
	KafkaBrokers []string
	// Per-minute limits: per token (unless the tenant's own limit is set),
	// per IP without a valid token, per IP on /webhooks/.
	TokenPerMinute, IPPerMinute, WebhookPerMinute int
	// Per-minute limits of the hosted pages (/l/...): per client IP, and per
	// payment or payout link.
	PageIPPerMinute, PageLinkPerMinute int
	// TokenCacheTTL bounds how long an introspection answer is reused.
	TokenCacheTTL time.Duration
	// ReadTimeout bounds reading a request on the public and admin
	// listeners (DefaultReadTimeout when 0): a client that announces more
	// body than it sends, or never ends its headers, gets 408.
	ReadTimeout time.Duration
	// PublicBaseURL, when set, gives X-Forwarded-Proto and X-Forwarded-Host
	// (so links the services build never follow a client's Host header) and
	// the server URL of the served OpenAPI document.
	PublicBaseURL string
	// ExtraRootCAs are trusted for HTTPS upstreams besides the system roots.
	ExtraRootCAs *x509.CertPool
	// Registrar, when set, registers this instance (the public listener's
	// port, with a health check on the internal listener's /readyz) at
	// start and deregisters it at stop; RegistrarFromEnv gives Consul's
	// when CONSUL_HTTP_ADDR is set. Nil registers nowhere (Kubernetes,
	// devstack, tests).
	Registrar discovery.Registrar
	// AdvertiseHost is the host the registration announces; empty means the
	// machine's host name.
	AdvertiseHost string
	Logger        *slog.Logger
	// Ready, when set, is called with the bound addresses once every
	// listener is up.
	Ready func(Addrs)
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
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
