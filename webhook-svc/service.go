// Package webhooksvc is webhook-svc: tenants' webhook endpoints, the events
// they subscribe to, and the signed, retried deliveries of those events.
// Run wires it together.
package webhooksvc

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/httpapi"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/migrations"
)

// serviceName labels logs and metrics.
const serviceName = "webhook-svc"

const (
	shutdownTimeout   = 10 * time.Second
	cleanupInterval   = time.Hour
	inboxRetention    = 14 * 24 * time.Hour
	jwksClientTimeout = 5 * time.Second
)

// Migrate applies the migrations with the owner DSN and grants the app role
// (the user of DatabaseURL) its DML rights.
func Migrate(ctx context.Context, cfg Config) error {
	if cfg.MigrateDatabaseURL == "" || cfg.DatabaseURL == "" {
		return errors.New("migrating needs MIGRATE_DATABASE_URL and DATABASE_URL")
	}
	if err := pgdb.Migrate(ctx, cfg.MigrateDatabaseURL, pgdb.AppRole(cfg.DatabaseURL), migrations.Sets()...); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
}

// Run serves webhook-svc until ctx is done, then shuts down gracefully: it
// migrates (when MigrateDatabaseURL is set), serves the API on HTTPAddr and
// probes and metrics on InternalAddr, consumes events (when brokers are
// configured) and dispatches deliveries.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sl, err := sealer.New(cfg.EncryptionKey)
	if err != nil {
		return err
	}
	roots, err := rootCAs(cfg)
	if err != nil {
		return err
	}
	if cfg.MigrateDatabaseURL != "" {
		if err := Migrate(ctx, cfg); err != nil {
			return err
		}
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer pool.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reg := obs.NewRegistry()
	tracing, err := obs.NewTracing(ctx, serviceName)
	if err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	defer func() {
		if err := tracing.Shutdown(ctx); err != nil {
			log.Warn("tracing shutdown", "error", err)
		}
	}()
	// Workers (outbox relay, consumers) find the registry and tracer here.
	ctx = obs.WithTelemetry(ctx, obs.Telemetry{Service: serviceName, Registry: reg, Tracing: tracing})
	st := store.New(pool)
	d, err := dispatch.New(dispatch.Options{
		Store: st, Sealer: sl, Log: log, Metrics: reg,
		Concurrency: cfg.DispatchConcurrency, PollInterval: cfg.PollInterval, TimeScale: cfg.RetryTimeScale,
		Transport: netguard.Options{Allow: cfg.AllowCIDRs, RootCAs: roots},
	})
	if err != nil {
		return err
	}
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	verifier := authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+"/internal/v1/jwks",
		&http.Client{Timeout: jwksClientTimeout})
	httpapi.Register(web, app.New(st, sl, nil), pool, verifier)

	ln, err := svcrun.Listen(cfg.HTTPListener, cfg.HTTPAddr)
	if err != nil {
		return err
	}
	httpDone := make(chan error, 1)
	go func() { httpDone <- web.Listener(ln) }()
	internalAddr, internalDone, err := obs.ServeInternal(ctx, cfg.InternalAddr, reg, pool.Ping, log)
	if err != nil {
		_ = web.Shutdown()
		return fmt.Errorf("serving internal listener: %w", err)
	}

	var workers sync.WaitGroup
	workerErr := make(chan error, 1)
	startWorkers(ctx, &workers, workerErr, cfg, pool, st, d, log)

	log.Info("webhook-svc started", "http_addr", ln.Addr().String(), "internal_addr", internalAddr.String(),
		"consumer", len(cfg.KafkaBrokers) > 0, "allow_cidrs", len(cfg.AllowCIDRs))
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()})
	}
	err = await(ctx, cancel, web, httpDone, internalDone, workerErr, log)
	workers.Wait()
	log.Info("webhook-svc stopped")
	return err
}

// await waits until ctx is done or a listener or worker stops, then cancels
// ctx (stopping the workers and the internal listener) and shuts the HTTP
// listener down. It returns why the service stopped (nil for ctx).
func await(ctx context.Context, cancel context.CancelFunc, web *fiber.App,
	httpDone, internalDone, workerErr <-chan error, log *slog.Logger) error {
	var runErr error
	internalStopped := false
	select {
	case <-ctx.Done():
	case err := <-httpDone:
		runErr = fmt.Errorf("http listener stopped: %w", err)
	case err := <-internalDone:
		internalStopped = true
		runErr = fmt.Errorf("internal listener stopped: %w", err)
	case runErr = <-workerErr:
	}
	cancel()
	if err := web.ShutdownWithTimeout(shutdownTimeout); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	if !internalStopped {
		if err := <-internalDone; err != nil {
			log.Warn("internal shutdown", "error", err)
		}
	}
	return runErr
}

// startWorkers starts the dispatcher, the event consumer (with brokers) and
// the periodic cleanups.
func startWorkers(ctx context.Context, wg *sync.WaitGroup, errs chan<- error, cfg Config, pool *pgxpool.Pool,
	st *store.Store, d *dispatch.Dispatcher, log *slog.Logger) {
	wg.Go(func() {
		if err := d.Run(ctx); err != nil && ctx.Err() == nil {
			errs <- fmt.Errorf("dispatcher: %w", err)
		}
	})
	if len(cfg.KafkaBrokers) > 0 {
		in := ingest.New(st, nil, log, d.Wake)
		for range cfg.Consumers {
			wg.Go(func() {
				if err := in.Run(ctx, cfg.KafkaBrokers); err != nil && ctx.Err() == nil {
					select {
					case errs <- fmt.Errorf("event consumer: %w", err):
					default:
					}
				}
			})
		}
	}
	wg.Go(func() { idempotency.CleanupEvery(ctx, pool, cleanupInterval, log) })
	wg.Go(func() { inbox.PruneEvery(ctx, pool, inboxRetention, cleanupInterval, log) })
}

// rootCAs is the trust store of deliveries: cfg.ExtraRootCAs when set (it
// is then the whole base: devstack passes its own CA), else the system's,
// plus the CAs of ExtraCAFile. Nil (the system's alone) when neither is set.
func rootCAs(cfg Config) (*x509.CertPool, error) {
	if cfg.ExtraCAFile == "" {
		return cfg.ExtraRootCAs, nil
	}
	pem, err := os.ReadFile(cfg.ExtraCAFile)
	if err != nil {
		return nil, fmt.Errorf("reading WEBHOOK_EXTRA_CA_FILE: %w", err)
	}
	if cfg.ExtraRootCAs != nil {
		pool := cfg.ExtraRootCAs.Clone()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("WEBHOOK_EXTRA_CA_FILE holds no PEM certificate")
		}
		return pool, nil
	}
	pool, err := netguard.RootCAs(pem)
	if err != nil {
		return nil, fmt.Errorf("WEBHOOK_EXTRA_CA_FILE: %w", err)
	}
	return pool, nil
}
