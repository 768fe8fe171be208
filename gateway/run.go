package gateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/idemscope"
	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/gateway/openapi"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/ratelimit"
	"github.com/paylane/paylane/libs/svcrun"
)

// adminServer names the admin listener among svcrun's servers.
const adminServer = "admin"

// rootPool is the type of the WithRootCAs seam.
type rootPool struct{ pool *x509.CertPool }

// WithRootCAs trusts pool for HTTPS upstreams besides the system roots (the
// devstack's local CA).
func WithRootCAs(pool *x509.CertPool) svcrun.Option { return svcrun.WithSeam(rootPool{pool}) }

// Run serves the public, admin and internal listeners and the token.revoked
// consumer until ctx is done (or the first failure), then shuts down
// gracefully (libs/svcrun): deregistered first, then drained. With
// svcrun.WithReady the addresses reported are the public (HTTP), the admin
// (Servers["admin"]) and the internal listener's; AddrsOf names them.
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: "gateway", Base: cfg.Common(), Validate: cfg.Validate,
		Registrar: cfg.Registrar, AdvertiseHost: cfg.AdvertiseHost,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg.withDefaults(), e) },
	}, opts...)
}

// build wires the gateway's pieces before anything listens.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	tlsCfg, err := serverTLS(cfg)
	if err != nil {
		return svcrun.Parts{}, err
	}
	roots, _ := svcrun.Seam[rootPool](e)
	stores, err := newShared(cfg)
	if err != nil {
		return svcrun.Parts{}, err
	}
	log := e.Log
	forwarder := proxy.NewForwarder(proxy.Options{ExtraRootCAs: roots.pool, Logger: log})
	identity := client.New(cfg.IdentityURL, identityHTTPClient(roots.pool))
	resolver := tokens.NewResolver(identity, tokens.Options{TTL: cfg.TokenCacheTTL, Logger: log})
	public, err := newPublicApp(cfg, resolver, stores, forwarder, e.Registry, e.Tracing, log)
	if err != nil {
		stores.close()
		return svcrun.Parts{}, err
	}
	admin := edge.NewAdmin(edge.AdminConfig{
		Token: cfg.AdminToken, Routes: prefixes(cfg.AdminRoutes), Forwarder: forwarder, Registry: e.Registry, Logger: log,
		ReadTimeout: cfg.ReadTimeout, Tracing: e.Tracing,
	})
	parts := svcrun.Parts{
		Web: public, Servers: []svcrun.Server{{Name: adminServer, Addr: cfg.AdminAddr, App: admin}}, TLS: tlsCfg,
		Ready: func(context.Context) error { return nil }, Close: stores.close,
		LogAttrs: []any{"tls", tlsCfg != nil, "routes", len(cfg.Routes), "admin_routes", len(cfg.AdminRoutes), "redis", cfg.RedisURL != ""},
	}
	if len(cfg.KafkaBrokers) > 0 {
		// The workers' context carries svcrun's obs.Telemetry (registry, tracer).
		parts.Workers = []svcrun.Worker{{Name: "revocation consumer", Run: func(ctx context.Context) error {
			return consumeRevocations(ctx, cfg, resolver, log)
		}}}
	} else {
		log.Warn("no KAFKA_BROKERS: revoked tokens stop working only when their cache entry expires")
	}
	return parts, nil
}

func newPublicApp(cfg Config, resolver *tokens.Resolver, stores shared, fw *proxy.Forwarder, reg prometheus.Registerer,
	tracing *obs.Tracing, log *slog.Logger) (*fiber.App, error) {
	doc, err := openapi.JSON()
	if err != nil {
		return nil, err
	}
	table, err := routing.NewTable(doc)
	if err != nil {
		return nil, err
	}
	served, err := openapi.WithServer(doc, cfg.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	base, err := edge.PublicBase(cfg.PublicBaseURL)
	if err != nil {
		return nil, fmt.Errorf("PUBLIC_BASE_URL: %w", err)
	}
	return edge.New(edge.Config{
		Table: table, Routes: prefixes(cfg.Routes), Resolver: resolver, Limiter: stores.limiter, Keys: stores.keys,
		Limits: edge.Limits{Token: cfg.TokenPerMinute, IP: cfg.IPPerMinute, Webhook: cfg.WebhookPerMinute,
			PageIP: cfg.PageIPPerMinute, PageLink: cfg.PageLinkPerMinute},
		Forwarder: fw, Document: served, PublicBase: base, Registry: reg, Logger: log,
		ReadTimeout: cfg.ReadTimeout, Tracing: tracing,
	}), nil
}

func prefixes(routes []Route) *routing.Prefixes {
	pairs := make([]routing.Pair, len(routes))
	for i, r := range routes {
		pairs[i] = routing.Pair{Prefix: r.Prefix, Upstream: r.Upstream}
	}
	return routing.NewPrefixes(pairs)
}

// serverTLS loads the certificate when one is configured: TLS 1.2 or later.
func serverTLS(cfg Config) (*tls.Config, error) {
	if cfg.TLSCertFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading TLS certificate: %w", err)
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"http/1.1"},
	}, nil
}

// shared are the stores every replica must share when there are several:
// the rate-limit counters and the Idempotency-Key bindings.
type shared struct {
	limiter ratelimit.Limiter
	keys    idemscope.Store
	close   func()
}

// newShared returns the Redis stores when REDIS_URL is set (shared by every
// replica), else the in-memory ones (one replica only).
func newShared(cfg Config) (shared, error) {
	if cfg.RedisURL == "" {
		return shared{
			limiter: ratelimit.NewMemory(time.Now),
			keys:    idemscope.NewMemory(time.Now, idemscope.DefaultMaxEntries),
			close:   func() {},
		}, nil
	}
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return shared{}, fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opts)
	return shared{limiter: ratelimit.NewRedis(rdb), keys: idemscope.NewRedis(rdb), close: func() { _ = rdb.Close() }}, nil
}

// identityHTTPClient is the pooled client for introspection; each call is
// also bounded by the resolver's timeout.
func identityHTTPClient(roots *x509.CertPool) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 128
	tr.MaxIdleConnsPerHost = 64
	tr.TLSClientConfig = proxy.TLSConfig(roots)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}
