// Package optin is optin-svc: the suppression list, opt-in codes and
// consents, SMS messages through a provider adapter (sink or Twilio), the
// hosted opt-in landing page and inbound SMS. Run wires it together:
// Postgres (migrations, the app pool), the HTTP listener, the internal
// listener (probes, metrics), the outbox relay, the event consumer and the
// message dispatcher.
package optin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/migrations"
)

const (
	// shutdownTimeout bounds the drain of the HTTP listener.
	shutdownTimeout = 10 * time.Second
	// cleanupInterval is how often expired idempotency keys are deleted.
	cleanupInterval = time.Hour
	// inboxRetention keeps consumed event ids well past any topic's
	// retention, so no redelivery outlives its claim.
	inboxRetention = 30 * 24 * time.Hour
	// pruneInterval is how often old inbox claims are deleted.
	pruneInterval = time.Hour
	// jwksPath is where identity-svc publishes the keys of internal tokens.
	jwksPath = "/internal/v1/jwks"
	// consumerGroup is optin-svc's Kafka consumer group.
	consumerGroup = "optin-svc"
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

// Run serves optin-svc until ctx is done, then shuts down gracefully.
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

	reg := obs.NewRegistry()
	metrics, err := app.NewMetrics(reg, newProvider(cfg).Name())
	if err != nil {
		return err
	}
	a := newApp(cfg, pool, metrics, log)
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
	web := newWeb(cfg, a, pool, reg, tracing, log)
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
	workers, workerErr := startWorkers(ctx, cfg, pool, a, log)

	log.Info("optin-svc started", "http_addr", ln.Addr().String(), "internal_addr", internalAddr.String(),
		"sms_provider", cfg.SMSProvider, "kafka", len(cfg.KafkaBrokers) > 0)
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()})
	}
	return wait(ctx, cancel, web.ShutdownWithTimeout, httpDone, internalDone, workerErr, workers, log)
}

// wait blocks until ctx is done or a listener or worker fails, then stops
// everything in order: the HTTP listener drains, the internal listener and
// the workers end with ctx. It returns the failure that ended the run, if any.
func wait(ctx context.Context, cancel context.CancelFunc, shutdownHTTP func(time.Duration) error,
	httpDone, internalDone <-chan error, workerErr <-chan error, workers *sync.WaitGroup, log *slog.Logger) error {
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
	if err := shutdownHTTP(shutdownTimeout); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	if !internalStopped {
		if err := <-internalDone; err != nil {
			log.Warn("internal shutdown", "error", err)
		}
	}
	workers.Wait()
	log.Info("optin-svc stopped")
	return runErr
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
