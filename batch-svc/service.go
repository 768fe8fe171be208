// Package batchsvc is batch-svc: asynchronous batch ingest. It owns the
// batch headers, the stored items and the row errors, accepts submissions
// (POST /api/v1/{contacts,receivables,payables}/batch), serves the batch
// reads (/api/v1/batches) and runs the workers that write the items through
// the services owning the records. Run wires it together.
package batchsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/httpapi"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
)

const (
	shutdownTimeout = 10 * time.Second
	cleanupInterval = time.Hour
	jwksPath        = "/internal/v1/jwks"
	// bodyLimit is a batch's payload limit (the gateway answers 413
	// batch_payload_too_large above it first).
	bodyLimit = 5 << 20
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

// Run serves batch-svc until ctx is done, then shuts down gracefully: the
// HTTP listener drains, each worker finishes its chunk in flight and
// releases its batch, the relay stops.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
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
	var relay *outbox.Relay
	if len(cfg.KafkaBrokers) > 0 {
		relay = outbox.NewRelay(pool, cfg.KafkaBrokers, log)
	}
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
	metrics, err := app.NewMetrics(reg)
	if err != nil {
		return err
	}
	if err := reg.Register(store.New(pool).QueueCollector()); err != nil {
		return fmt.Errorf("registering batch queue metrics: %w", err)
	}
	parts := build(cfg, pool, relay, metrics, log)
	web := httpx.NewApp(log, fiber.Config{BodyLimit: bodyLimit})
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	httpapi.Register(web, parts.app, pool, authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+jwksPath, nil))

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
	workers.Go(func() { parts.workers.Run(ctx) })
	workers.Go(func() { idempotency.CleanupEvery(ctx, pool, cleanupInterval, log) })
	if relay != nil {
		workers.Go(func() {
			if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
				workerErr <- fmt.Errorf("outbox relay: %w", err)
			}
		})
	}
	log.Info("batch-svc started", "http_addr", ln.Addr().String(), "internal_addr", internalAddr.String(),
		"workers", cfg.Workers, "kafka", relay != nil)
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()})
	}
	err = await(ctx, cancel, web, httpDone, internalDone, workerErr, log)
	workers.Wait()
	log.Info("batch-svc stopped")
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
