// Package identity is identity-svc: the deployment's tenants (the central
// routing table), their API tokens and abilities, flags and limits, and the
// key that signs internal tokens. Run wires it together.
package identity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/httpapi"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
)

// serviceName labels logs and metrics.
const serviceName = "identity-svc"

// shutdownTimeout bounds the drain of the HTTP listener.
const shutdownTimeout = 10 * time.Second

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

// Run serves identity-svc until ctx is done, then shuts down gracefully: it
// migrates (when MigrateDatabaseURL is set), opens the app pool, serves the
// internal and admin API on HTTPAddr and probes and metrics on
// InternalAddr, relays the outbox to Kafka when brokers are configured, and
// registers the instance with cfg.Registrar, when set, until it stops.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	signer, err := authz.NewSigner(cfg.SigningKey)
	if err != nil {
		return fmt.Errorf("loading signing key: %w", err)
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
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName))
	httpapi.Register(web, app.New(store.New(pool), signer, cfg.InternalTokenTTL), signer.JWKS(), cfg.AdminToken, cfg.ServiceSecret)

	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.HTTPAddr, err)
	}
	httpDone := make(chan error, 1)
	go func() { httpDone <- web.Listener(ln) }()

	internalAddr, internalDone, err := obs.ServeInternal(ctx, cfg.InternalAddr, reg, pool.Ping, log)
	if err != nil {
		_ = web.Shutdown()
		return fmt.Errorf("serving internal listener: %w", err)
	}

	addrs := Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()}
	var workers sync.WaitGroup
	workerErr := make(chan error, 1)
	if len(cfg.KafkaBrokers) > 0 {
		relay := outbox.NewRelay(pool, cfg.KafkaBrokers, log)
		workers.Go(func() {
			if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
				workerErr <- fmt.Errorf("outbox relay: %w", err)
			}
		})
	}

	internalStopped := false
	deregister, runErr := announce(ctx, cfg, addrs, log)
	if runErr != nil && ctx.Err() != nil {
		runErr = nil // stopped while registering: a normal stop
	}
	if runErr == nil && deregister != nil {
		log.Info("identity-svc started", "http_addr", addrs.HTTP, "internal_addr", addrs.Internal,
			"relay", len(cfg.KafkaBrokers) > 0, "discovery", cfg.Registrar != nil)
		if cfg.Ready != nil {
			cfg.Ready(addrs)
		}
		select {
		case <-ctx.Done():
		case err := <-httpDone:
			runErr = fmt.Errorf("http listener stopped: %w", err)
		case err := <-internalDone:
			internalStopped = true
			runErr = fmt.Errorf("internal listener stopped: %w", err)
		case runErr = <-workerErr:
		}
		// Out of the registry before draining: no new traffic is sent here.
		deregister()
	}
	cancel()
	if err := web.ShutdownWithTimeout(shutdownTimeout); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	// Fiber's shutdown closes only a listener it already serves: after an
	// early failure the server may not have started on ln yet.
	_ = ln.Close()
	if !internalStopped {
		if err := <-internalDone; err != nil {
			log.Warn("internal shutdown", "error", err)
		}
	}
	workers.Wait()
	log.Info("identity-svc stopped")
	return runErr
}
