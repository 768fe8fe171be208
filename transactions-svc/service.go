// Package transactions is transactions-svc: transactions with their
// receivables and payables, the state machines and lifecycle actions, the
// sandbox rail, the hosted pay and payout pages, transaction field
// definitions, campaigns and the scheduler. Run wires it together.
package transactions

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/consumer"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
	"github.com/paylane/paylane/transactions-svc/internal/links"
	"github.com/paylane/paylane/transactions-svc/internal/pages"
	"github.com/paylane/paylane/transactions-svc/internal/peers"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
	"github.com/paylane/paylane/transactions-svc/internal/scheduler"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

// cleanupInterval is how often expired idempotency keys and bulk row records are deleted.
const cleanupInterval = time.Hour

// Migrate applies the migrations with the owner DSN and grants the app role
// (the user of DatabaseURL) its DML rights.
func Migrate(ctx context.Context, cfg Config) error {
	return svcrun.Migrate(ctx, cfg.MigrateDatabaseURL, cfg.DatabaseURL, migrations.Sets()...)
}

// Run serves transactions-svc until ctx is done, then shuts down
// gracefully: it migrates (when MigrateDatabaseURL is set), opens the app
// pool, serves the API and the hosted pages on HTTPAddr and probes and
// metrics on InternalAddr, and runs the scheduler, the idempotency-key
// cleanup and, with brokers, the outbox relay and the message and tenant
// consumers.
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

	st := store.New(pool)
	reg := obs.NewRegistry()
	rails, err := railmetrics.New(reg, "sandbox", "stripe")
	if err != nil {
		return err
	}
	uc := app.New(st, peers.NewContacts(cfg.ContactsURL, nil, cfg.ContactsTimeout), signer, cfg.Clock).WithRailMetrics(rails)
	if cfg.RailEncryptionKey != nil {
		sl, err := sealer.New(cfg.RailEncryptionKey)
		if err != nil {
			return fmt.Errorf("rail sealer: %w", err)
		}
		uc.WithRails(&app.Rails{Stripe: striperail.New(striperail.Config{APIBase: cfg.StripeAPIBase, Timeout: cfg.StripeTimeout}),
			Sealer: sl, PublicBase: cfg.PublicBaseURL})
	}
	tracing, err := obs.NewTracing(ctx, serviceName)
	if err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	web := httpx.NewApp(log, fiber.Config{BodyLimit: httpapi.MaxBody})
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	pages.Register(web, pages.Deps{App: uc, Signer: signer, Log: log})
	httpapi.Register(web, httpapi.Deps{App: uc, Verifier: authz.NewVerifier(cfg.jwksURL(), nil), Pool: pool, Log: log})

	svc, err := svcrun.Start(ctx, svcrun.Options{Name: serviceName, HTTPAddr: cfg.HTTPAddr, HTTPListener: cfg.HTTPListener, InternalAddr: cfg.InternalAddr,
		Web: web, Registry: reg, Tracing: tracing, Ready: pool.Ping, Log: log})
	if err != nil {
		return err
	}
	startWorkers(svc, cfg, st, uc, log)

	log.Info("transactions-svc started", "http_addr", svc.HTTPAddr(), "internal_addr", svc.InternalAddr(),
		"kafka", len(cfg.KafkaBrokers) > 0)
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: svc.HTTPAddr(), Internal: svc.InternalAddr()})
	}
	return svc.Wait()
}

// startWorkers starts the background loops; each ends with the service.
func startWorkers(svc *svcrun.Service, cfg Config, st *store.Store, uc *app.App, log *slog.Logger) {
	pool := st.Pool()
	svc.Loop(func(ctx context.Context) {
		tenancy.DeleteExpiredEvery(ctx, pool, cleanupInterval, log, "idempotency_keys", "transaction_batch_rows",
			"notifications", "ai_confirmations")
	})
	svc.Loop(scheduler.New(st, uc, cfg.SchedulerInterval, log).Run)
	if len(cfg.KafkaBrokers) == 0 {
		return
	}
	svc.Go("outbox relay", outbox.NewRelay(pool, cfg.KafkaBrokers, log).Run)
	svc.Go("message consumer", func(ctx context.Context) error { return consumer.Run(ctx, cfg.KafkaBrokers, uc, log) })
	svc.Go("tenant consumer", func(ctx context.Context) error { return consumer.RunTenants(ctx, cfg.KafkaBrokers, uc, log) })
}
