package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/gateway/openapi"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/ratelimit"
)

// shutdownTimeout bounds the graceful drain of the listeners.
const shutdownTimeout = 10 * time.Second

// Run starts the public, admin and internal listeners and the token.revoked
// consumer, calls cfg.Ready with the bound addresses, and returns after a
// graceful shutdown once ctx is done (or the first failure).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("gateway configuration: %w", err)
	}
	cfg = cfg.withDefaults()
	log := cfg.Logger
	tlsCfg, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	limiter, closeLimiter, err := newLimiter(cfg)
	if err != nil {
		return err
	}
	defer closeLimiter()
	reg := obs.NewRegistry()
	forwarder := proxy.NewForwarder(proxy.Options{ExtraRootCAs: cfg.ExtraRootCAs, Logger: log})
	identity := client.New(cfg.IdentityURL, identityHTTPClient(cfg))
	resolver := tokens.NewResolver(identity, tokens.Options{TTL: cfg.TokenCacheTTL, Logger: log})
	publicApp, err := newPublicApp(cfg, resolver, limiter, forwarder, reg)
	if err != nil {
		return err
	}
	adminApp := edge.NewAdmin(edge.AdminConfig{
		Token: cfg.AdminToken, Routes: prefixes(cfg.AdminRoutes), Forwarder: forwarder, Registry: reg, Logger: log,
	})

	var up atomic.Bool
	g, gctx := errgroup.WithContext(ctx)
	publicLn, err := listen(cfg.ListenAddr, tlsCfg)
	if err != nil {
		return err
	}
	adminLn, err := listen(cfg.AdminAddr, tlsCfg)
	if err != nil {
		publicLn.Close()
		return err
	}
	internalAddr, internalDone, err := obs.ServeInternal(gctx, cfg.InternalAddr, reg, func(context.Context) error {
		if !up.Load() {
			return errors.New("listeners starting")
		}
		return nil
	}, log)
	if err != nil {
		publicLn.Close()
		adminLn.Close()
		return err
	}
	g.Go(func() error { return serve(gctx, "public", publicApp, publicLn) })
	g.Go(func() error { return serve(gctx, "admin", adminApp, adminLn) })
	g.Go(func() error { return <-internalDone })
	g.Go(func() error { return shutdownOnDone(gctx, log, publicApp, adminApp) })
	if len(cfg.KafkaBrokers) > 0 {
		g.Go(func() error { return consumeRevocations(gctx, cfg, resolver) })
	} else {
		log.Warn("no KAFKA_BROKERS: revoked tokens stop working only when their cache entry expires")
	}
	up.Store(true)
	addrs := Addrs{Public: publicLn.Addr().String(), Admin: adminLn.Addr().String(), Internal: internalAddr.String()}
	log.Info("gateway listening", "public", addrs.Public, "admin", addrs.Admin, "internal", addrs.Internal,
		"tls", tlsCfg != nil, "routes", len(cfg.Routes), "admin_routes", len(cfg.AdminRoutes), "redis", cfg.RedisURL != "")
	if cfg.Ready != nil {
		cfg.Ready(addrs)
	}
	return g.Wait()
}

func newPublicApp(cfg Config, resolver *tokens.Resolver, limiter ratelimit.Limiter, fw *proxy.Forwarder, reg prometheus.Registerer) (*fiber.App, error) {
	doc, err := openapi.JSON()
	if err != nil {
		return nil, err
	}
	table, err := routing.NewTable(doc)
	if err != nil {
		return nil, err
	}
	served, err := openapi.Served(cfg.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	base, err := edge.PublicBase(cfg.PublicBaseURL)
	if err != nil {
		return nil, fmt.Errorf("PUBLIC_BASE_URL: %w", err)
	}
	return edge.New(edge.Config{
		Table: table, Routes: prefixes(cfg.Routes), Resolver: resolver, Limiter: limiter,
		Limits:    edge.Limits{Token: cfg.TokenPerMinute, IP: cfg.IPPerMinute, Webhook: cfg.WebhookPerMinute},
		Forwarder: fw, Document: served, PublicBase: base, Registry: reg, Logger: cfg.Logger,
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

func listen(addr string, tlsCfg *tls.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	return ln, nil
}

// serve runs app on ln; stopping before ctx is done is a failure.
func serve(ctx context.Context, name string, app *fiber.App, ln net.Listener) error {
	err := app.Listener(ln)
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = errors.New("stopped")
	}
	return fmt.Errorf("%s listener: %w", name, err)
}

func shutdownOnDone(ctx context.Context, log *slog.Logger, apps ...*fiber.App) error {
	<-ctx.Done()
	var errs []error
	for _, app := range apps {
		if err := app.ShutdownWithTimeout(shutdownTimeout); err != nil {
			errs = append(errs, err)
		}
	}
	log.Info("gateway stopped")
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// newLimiter returns the Redis limiter when REDIS_URL is set (counters
// shared by every replica), else the in-memory one (one replica only).
func newLimiter(cfg Config) (ratelimit.Limiter, func(), error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewMemory(time.Now), func() {}, nil
	}
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opts)
	return ratelimit.NewRedis(rdb), func() { _ = rdb.Close() }, nil
}

// identityHTTPClient is the pooled client for introspection; each call is
// also bounded by the resolver's timeout.
func identityHTTPClient(cfg Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 128
	tr.MaxIdleConnsPerHost = 64
	tr.TLSClientConfig = proxy.TLSConfig(cfg.ExtraRootCAs)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}
