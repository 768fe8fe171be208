// Package identity is identity-svc: the deployment's tenants (the central
// routing table), their API tokens and abilities, flags and limits, and the
// key that signs internal tokens. Run wires it together.
package identity

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/httpapi"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/svcrun"
)

// serviceName labels logs and metrics.
const serviceName = "identity-svc"

// Migrate applies the migrations with the owner DSN and grants the app role
// (the user of DatabaseURL) its DML rights.
func Migrate(ctx context.Context, cfg Config) error {
	return svcrun.Migrate(ctx, cfg.MigrateDatabaseURL, cfg.DatabaseURL, migrations.Sets()...)
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

	reg := obs.NewRegistry()
	tracing, err := obs.NewTracing(ctx, serviceName)
	if err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	httpapi.Register(web, app.New(store.New(pool), signer, cfg.InternalTokenTTL).WithPublicURL(cfg.PublicBaseURL), signer.JWKS(), cfg.AdminToken, cfg.ServiceSecret)

	svc, err := svcrun.Start(ctx, svcrun.Options{Name: serviceName, HTTPAddr: cfg.HTTPAddr, HTTPListener: cfg.HTTPListener, InternalAddr: cfg.InternalAddr,
		Web: web, Registry: reg, Tracing: tracing, Ready: pool.Ping, Log: log})
	if err != nil {
		return err
	}
	if len(cfg.KafkaBrokers) > 0 {
		svc.Go("outbox relay", outbox.NewRelay(pool, cfg.KafkaBrokers, log).Run)
	}
	addrs := Addrs{HTTP: svc.HTTPAddr(), Internal: svc.InternalAddr()}
	deregister, err := announce(svc.Context(), cfg, addrs, log)
	if err != nil {
		if svc.Context().Err() != nil {
			err = nil // stopped while registering: a normal stop
		}
		return svc.Stop(err)
	}
	// Out of the registry before draining: no new traffic is sent here.
	svc.BeforeDrain(deregister)
	log.Info("identity-svc started", "http_addr", addrs.HTTP, "internal_addr", addrs.Internal,
		"relay", len(cfg.KafkaBrokers) > 0, "discovery", cfg.Registrar != nil)
	if cfg.Ready != nil {
		cfg.Ready(addrs)
	}
	return svc.Wait()
}
