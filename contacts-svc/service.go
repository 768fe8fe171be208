// Package contacts is contacts-svc: the tenant's contacts, their canonical
// phone records and the contact field definitions. Run wires it together:
// Postgres (migrations, the app pool), the HTTP listener with the public and
// internal routes, the internal listener (probes, metrics), the outbox relay
// to Kafka and the expiry of idempotency keys.
package contacts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/httpapi"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/tenancy"
)

const (
	// shutdownTimeout bounds the drain of the HTTP listener.
	shutdownTimeout = 10 * time.Second
	// cleanupInterval is how often expired idempotency keys and bulk row records are deleted.
	cleanupInterval = time.Hour
	// bodyLimit is the request body cap of the service's HTTP app. It is
	// above libs/httpx's 1 MB default because a bulk-upsert chunk from
	// batch-svc carries up to 500 items of a batch of up to 5 MB, so one
	// legitimate chunk (long custom-field strings) can exceed 1 MB; a 413
	// here would fail the whole batch. Public bodies keep their limits: the
	// gateway caps them (1 MB, 5 MB for batch submissions) before they
	// reach the service. Same as transactions-svc's httpapi.MaxBody.
	bodyLimit = 6 << 20
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

// Run serves contacts-svc until ctx is done, then shuts down gracefully.
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

	optIns, optInCache := cfg.optIns()
	var relay *outbox.Relay // nil: no relay, nothing to wake
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
	web := httpx.NewApp(log, fiber.Config{BodyLimit: bodyLimit})
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	httpapi.Register(web, httpapi.Deps{
		App:      app.New(store.New(pool, relay), optIns),
		Verifier: authz.NewVerifier(cfg.jwksURL(), nil),
		Pool:     pool,
		Region:   cfg.DefaultRegion,
	})

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
	workers.Go(func() {
		tenancy.DeleteExpiredEvery(ctx, pool, cleanupInterval, log, "idempotency_keys", "contact_batch_rows")
	})
	if optInCache != nil && len(cfg.KafkaBrokers) > 0 {
		workers.Go(func() { followOptIns(ctx, cfg.KafkaBrokers, optInCache, log) })
	}
	if relay != nil {
		workers.Go(func() {
			if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
				workerErr <- fmt.Errorf("outbox relay: %w", err)
			}
		})
	}

	log.Info("contacts-svc started", "http_addr", ln.Addr().String(), "internal_addr", internalAddr.String(),
		"relay", len(cfg.KafkaBrokers) > 0)
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()})
	}
	return wait(ctx, cancel, web.ShutdownWithTimeout, httpDone, internalDone, workerErr, &workers, log)
}
