// Package transactions is transactions-svc: transactions with their
// receivables and payables, the state machines and lifecycle actions, the
// sandbox rail, the hosted pay and payout pages, transaction field
// definitions, campaigns and the scheduler. Run wires it together.
package transactions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/consumer"
	"github.com/paylane/paylane/transactions-svc/internal/contacts"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/pages"
	"github.com/paylane/paylane/transactions-svc/internal/scheduler"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

const (
	// shutdownTimeout bounds the drain of the HTTP listener.
	shutdownTimeout = 10 * time.Second
	// cleanupInterval is how often expired idempotency keys are deleted.
	cleanupInterval = time.Hour
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

// Run serves transactions-svc until ctx is done, then shuts down
// gracefully: it migrates (when MigrateDatabaseURL is set), opens the app
// pool, serves the API and the hosted pages on HTTPAddr and probes and
// metrics on InternalAddr, and runs the scheduler, the idempotency-key
// cleanup and, with brokers, the outbox relay and the message consumer.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	signer, err := links.NewSigner(cfg.LinkKey, cfg.PublicBaseURL)
	if err != nil {
		return fmt.Errorf("link signer: %w", err)
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

	st := store.New(pool)
	uc := app.New(st, contacts.New(cfg.ContactsURL, nil, cfg.ContactsTimeout), signer, cfg.Clock)
	reg := obs.NewRegistry()
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName))
	pages.Register(web, pages.Deps{App: uc, Signer: signer, Log: log})
	httpapi.Register(web, httpapi.Deps{App: uc, Verifier: authz.NewVerifier(cfg.jwksURL(), nil), Pool: pool})

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
	var workers sync.WaitGroup
	workerErr := make(chan error, 2)
	startWorkers(ctx, cfg, &workers, workerErr, workerDeps{st: st, app: uc, log: log})

	log.Info("transactions-svc started", "http_addr", ln.Addr().String(), "internal_addr", internalAddr.String(),
		"kafka", len(cfg.KafkaBrokers) > 0)
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: ln.Addr().String(), Internal: internalAddr.String()})
	}
	return wait(ctx, cancel, web.ShutdownWithTimeout, httpDone, internalDone, workerErr, &workers, log)
}

type workerDeps struct {
	st  *store.Store
	app *app.App
	log *slog.Logger
}

// startWorkers starts the background loops; each ends with ctx.
func startWorkers(ctx context.Context, cfg Config, wg *sync.WaitGroup, errs chan<- error, d workerDeps) {
	pool := d.st.Pool()
	wg.Go(func() { idempotency.CleanupEvery(ctx, pool, cleanupInterval, d.log) })
	wg.Go(func() { scheduler.New(d.st, d.app, cfg.SchedulerInterval, d.log).Run(ctx) })
	if len(cfg.KafkaBrokers) == 0 {
		return
	}
	relay := outbox.NewRelay(pool, cfg.KafkaBrokers, d.log)
	wg.Go(func() {
		if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
			errs <- fmt.Errorf("outbox relay: %w", err)
		}
	})
	wg.Go(func() {
		if err := consumer.Run(ctx, cfg.KafkaBrokers, d.app, d.log); err != nil && ctx.Err() == nil {
			errs <- fmt.Errorf("message consumer: %w", err)
		}
	})
}
