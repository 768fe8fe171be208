package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/idemscope"
	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/gateway/openapi"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/ratelimit"
	"github.com/paylane/paylane/libs/svcrun"
)

// shutdownTimeout bounds the graceful drain of the listeners.
const shutdownTimeout = 10 * time.Second

// Run starts the public, admin and internal listeners and the token.revoked
// consumer, registers with cfg.Registrar when one is set, calls cfg.Ready
// with the bound addresses, and returns after a graceful shutdown
// (deregistered first) once ctx is done (or the first failure).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("gateway configuration: %w", err)
	}
	cfg = cfg.withDefaults()
	tracing, err := obs.NewTracing(ctx, "gateway")
	if err != nil {
		return fmt.Errorf("gateway configuration: %w", err)
	}
	defer func() {
		if err := tracing.Shutdown(ctx); err != nil {
			cfg.Logger.Warn("flushing spans", "error", err)
		}
	}()
	p, err := build(cfg, tracing)
	if err != nil {
		return err
	}
	defer p.closeLimiter()
	return p.serve(ctx, cfg)
}

// parts are the gateway's pieces, wired before anything listens.
type parts struct {
	tls           *tls.Config
	reg           *prometheus.Registry
	tracing       *obs.Tracing
	resolver      *tokens.Resolver
	public, admin *fiber.App
	closeLimiter  func()
}

func build(cfg Config, tracing *obs.Tracing) (*parts, error) {
	tlsCfg, err := serverTLS(cfg)
	if err != nil {
		return nil, err
	}
	p := &parts{tls: tlsCfg, reg: obs.NewRegistry(), tracing: tracing}
	stores, err := newShared(cfg)
	if err != nil {
		return nil, err
	}
	forwarder := proxy.NewForwarder(proxy.Options{ExtraRootCAs: cfg.ExtraRootCAs, Logger: cfg.Logger})
	identity := client.New(cfg.IdentityURL, identityHTTPClient(cfg))
	p.resolver = tokens.NewResolver(identity, tokens.Options{TTL: cfg.TokenCacheTTL, Logger: cfg.Logger})
	if p.public, err = newPublicApp(cfg, p.resolver, stores, forwarder, p.reg, tracing); err != nil {
		stores.close()
		return nil, err
	}
	p.admin = edge.NewAdmin(edge.AdminConfig{
		Token: cfg.AdminToken, Routes: prefixes(cfg.AdminRoutes), Forwarder: forwarder, Registry: p.reg, Logger: cfg.Logger,
		ReadTimeout: cfg.ReadTimeout, Tracing: tracing,
	})
	p.closeLimiter = stores.close
	return p, nil
}

// serve binds the listeners, runs everything until ctx is done or one part
// fails, and shuts down.
func (p *parts) serve(ctx context.Context, cfg Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := cfg.Logger
	publicLn, err := listen(cfg.PublicListener, cfg.ListenAddr, p.tls)
	if err != nil {
		return err
	}
	adminLn, err := listen(nil, cfg.AdminAddr, p.tls)
	if err != nil {
		publicLn.Close()
		return err
	}
	servers := []server{{"public", p.public, publicLn}, {"admin", p.admin, adminLn}}
	var up atomic.Bool
	g, gctx := errgroup.WithContext(ctx)
	internalAddr, internalDone, err := obs.ServeInternal(gctx, cfg.InternalAddr, p.reg, func(context.Context) error {
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
	for _, s := range servers {
		g.Go(func() error { return s.run(gctx) })
	}
	g.Go(func() error { return <-internalDone })
	addrs := Addrs{Public: publicLn.Addr().String(), Admin: adminLn.Addr().String(), Internal: internalAddr.String()}
	up.Store(true) // ready before registering: the registry's first check passes
	deregister, err := announce(gctx, cfg, addrs)
	g.Go(func() error { return shutdownOnDone(gctx, log, servers, deregister) })
	if err != nil {
		if gctx.Err() != nil { // stopping anyway: the cause is elsewhere, or none
			return g.Wait()
		}
		cancel()
		_ = g.Wait()
		return err
	}
	if len(cfg.KafkaBrokers) > 0 {
		tel := obs.Telemetry{Service: "gateway", Registry: p.reg, Tracing: p.tracing}
		g.Go(func() error { return consumeRevocations(obs.WithTelemetry(gctx, tel), cfg, p.resolver) })
	} else {
		log.Warn("no KAFKA_BROKERS: revoked tokens stop working only when their cache entry expires")
	}
	log.Info("gateway listening", "public", addrs.Public, "admin", addrs.Admin, "internal", addrs.Internal,
		"tls", p.tls != nil, "routes", len(cfg.Routes), "admin_routes", len(cfg.AdminRoutes), "redis", cfg.RedisURL != "")
	if cfg.Ready != nil {
		cfg.Ready(addrs)
	}
	return g.Wait()
}

func newPublicApp(cfg Config, resolver *tokens.Resolver, stores shared, fw *proxy.Forwarder, reg prometheus.Registerer,
	tracing *obs.Tracing) (*fiber.App, error) {
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
		Forwarder: fw, Document: served, PublicBase: base, Registry: reg, Logger: cfg.Logger,
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

// listen serves ln when bound already, otherwise listens on addr; behind
// TLS when tlsCfg is set.
func listen(ln net.Listener, addr string, tlsCfg *tls.Config) (net.Listener, error) {
	ln, err := svcrun.Listen(ln, addr)
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	return ln, nil
}

// server is a Fiber app on its listener.
type server struct {
	name string
	app  *fiber.App
	ln   net.Listener
}

// run serves until shutdown; stopping before ctx is done is a failure.
func (s server) run(ctx context.Context) error {
	err := s.app.Listener(s.ln)
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		err = errors.New("stopped")
	}
	return fmt.Errorf("%s listener: %w", s.name, err)
}

// shutdownOnDone deregisters the instance from discovery once ctx is done,
// so that no new traffic is sent here, and then drains the servers. The
// listeners are closed too, in case a server had not started serving yet
// (Fiber's shutdown only knows listeners already served).
func shutdownOnDone(ctx context.Context, log *slog.Logger, servers []server, deregister func()) error {
	<-ctx.Done()
	deregister()
	for _, s := range servers {
		// A drain that runs out of time (a client holding a connection
		// that never sent a request keeps fasthttp waiting) is not a failed
		// stop: the connections are dropped and the process exits cleanly.
		if err := s.app.ShutdownWithTimeout(shutdownTimeout); err != nil {
			log.Warn("draining listener", "listener", s.name, "error", err)
		}
		_ = s.ln.Close() // already closed by the shutdown unless it never served
	}
	log.Info("gateway stopped")
	return nil
}

// deregisterTimeout bounds the deregistration at shutdown.
const deregisterTimeout = 5 * time.Second

// announce registers the gateway with cfg.Registrar, when set: the public
// listener's port, and a health check on the internal listener's /readyz.
// It returns the function that deregisters it (a no-op without a Registrar
// or after a failure), which uses a context of its own since ctx is done
// by then and only logs a failure: the agent drops the instance once its
// check stays critical.
func announce(ctx context.Context, cfg Config, addrs Addrs) (func(), error) {
	if cfg.Registrar == nil {
		return func() {}, nil
	}
	host := cfg.AdvertiseHost
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return func() {}, fmt.Errorf("registering with discovery: host name: %w", err)
		}
		host = h
	}
	reg, err := discovery.NewRegistration("gateway", host, addrs.Public, addrs.Internal)
	if err != nil {
		return func() {}, fmt.Errorf("registering with discovery: %w", err)
	}
	deregister, err := discovery.Announce(ctx, cfg.Registrar, reg)
	if err != nil {
		return func() {}, fmt.Errorf("registering with discovery: %w", err)
	}
	id, log := reg.ServiceID(), cfg.Logger
	log.Info("registered with discovery", "service_id", id)
	return func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deregisterTimeout)
		defer cancel()
		if err := deregister(dctx); err != nil {
			log.Warn("deregistering from discovery", "service_id", id, "error", err)
			return
		}
		log.Info("deregistered from discovery", "service_id", id)
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
func identityHTTPClient(cfg Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 128
	tr.MaxIdleConnsPerHost = 64
	tr.TLSClientConfig = proxy.TLSConfig(cfg.ExtraRootCAs)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}
