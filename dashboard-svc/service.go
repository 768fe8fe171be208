// Package dashboardsvc is dashboard-svc: the tenant dashboard (/dashboard),
// server-rendered pages for the users of a tenant. It owns sessions only;
// users, roles and tokens live in identity-svc, which it calls through
// its client, so every rule of a user's role applies as on the API. Run
// wires it together.
package dashboardsvc

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"
	webhooks "github.com/paylane/paylane/webhook-svc/client"

	"github.com/paylane/paylane/dashboard-svc/internal/store"
	"github.com/paylane/paylane/dashboard-svc/internal/web"
	"github.com/paylane/paylane/dashboard-svc/migrations"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
)

// peerTimeout bounds a call to a peer service.
const peerTimeout = 10 * time.Second

// sweepInterval is how often sessions idle past their expiry are deleted.
const sweepInterval = 10 * time.Minute

// Migrate applies the migrations with the owner DSN and grants the app role
// (the user of DatabaseURL) its DML rights.
func Migrate(ctx context.Context, cfg Config) error {
	return svcrun.Migrate(ctx, cfg.MigrateDatabaseURL, cfg.DatabaseURL, migrations.Sets()...)
}

// Run serves dashboard-svc until ctx is done, then shuts down gracefully.
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

	sessions := store.New(pool)
	ident := identity.NewWithSecret(strings.TrimRight(cfg.IdentityURL, "/"), cfg.ServiceSecret,
		&http.Client{Timeout: peerTimeout}).WithService(serviceName)
	reg := obs.NewRegistry()
	txns := transactions.New(strings.TrimRight(cfg.TransactionsURL, "/"), &http.Client{Timeout: peerTimeout})
	hooks := webhooks.New(strings.TrimRight(cfg.WebhookURL, "/"), &http.Client{Timeout: peerTimeout})
	app, err := web.New(web.Options{Identity: ident, Transactions: txns, Webhooks: hooks, Sessions: sessions, Log: log,
		Middleware: []fiber.Handler{obs.HTTPMetrics(reg, serviceName)}})
	if err != nil {
		return err
	}

	svc, err := svcrun.Start(ctx, svcrun.Options{Name: serviceName, HTTPAddr: cfg.HTTPAddr, HTTPListener: cfg.HTTPListener,
		InternalAddr: cfg.InternalAddr, Web: app.Fiber(), Registry: reg, Ready: pool.Ping, Log: log})
	if err != nil {
		return err
	}
	svc.Go("session sweeper", func(ctx context.Context) error {
		t := time.NewTicker(sweepInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
				if _, err := sessions.Sweep(ctx, time.Now()); err != nil && ctx.Err() == nil {
					log.Warn("sweeping sessions", "err", err)
				}
			}
		}
	})
	addrs := Addrs{HTTP: svc.HTTPAddr(), Internal: svc.InternalAddr()}
	log.Info("dashboard-svc started", "http_addr", addrs.HTTP, "internal_addr", addrs.Internal)
	if cfg.Ready != nil {
		cfg.Ready(addrs)
	}
	return svc.Wait()
}
