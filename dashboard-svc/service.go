// Package dashboardsvc is dashboard-svc: the tenant dashboard (/dashboard),
// server-rendered pages for the users of a tenant. It owns sessions only;
// users, roles and tokens live in identity-svc, which it calls through
// its client, so every rule of a user's role applies as on the API. Run
// wires it together on libs/svcrun.
package dashboardsvc

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	batches "github.com/paylane/paylane/batch-svc/client"
	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	optin "github.com/paylane/paylane/optin-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"
	webhooks "github.com/paylane/paylane/webhook-svc/client"

	"github.com/paylane/paylane/dashboard-svc/internal/store"
	"github.com/paylane/paylane/dashboard-svc/internal/web"
	"github.com/paylane/paylane/dashboard-svc/migrations"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/svcrun"
)

// peerTimeout bounds a call to a peer service.
const peerTimeout = 10 * time.Second

// sweepInterval is how often sessions idle past their expiry are deleted.
const sweepInterval = 10 * time.Minute

// Run serves dashboard-svc until ctx is done, then shuts down gracefully
// (libs/svcrun).
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e) },
	}, opts...)
}

// build wires the sessions, the peers' clients, the pages and the session
// sweeper.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	sessions := store.New(e.Pool)
	ident := identity.NewWithSecret(strings.TrimRight(cfg.IdentityURL, "/"), cfg.ServiceSecret,
		&http.Client{Timeout: peerTimeout}).WithService(serviceName)
	txns := transactions.New(strings.TrimRight(cfg.TransactionsURL, "/"), &http.Client{Timeout: peerTimeout})
	hooks := webhooks.New(strings.TrimRight(cfg.WebhookURL, "/"), &http.Client{Timeout: peerTimeout})
	people := contacts.New(strings.TrimRight(cfg.ContactsURL, "/"), &http.Client{Timeout: peerTimeout})
	consent := optin.New(strings.TrimRight(cfg.OptInURL, "/"), &http.Client{Timeout: peerTimeout})
	imports := batches.New(strings.TrimRight(cfg.BatchURL, "/"), &http.Client{Timeout: peerTimeout})
	app, err := web.New(web.Options{Identity: ident, Transactions: txns, Webhooks: hooks, Contacts: people, OptIn: consent,
		Batches:  imports,
		Sessions: sessions, Log: e.Log,
		Middleware: []fiber.Handler{obs.HTTPMetrics(e.Registry, serviceName), e.Tracing.Requests(e.Log)}})
	if err != nil {
		return svcrun.Parts{}, err
	}
	sweep := svcrun.Loop("session sweeper", func(ctx context.Context) {
		t := time.NewTicker(sweepInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := sessions.Sweep(ctx, time.Now()); err != nil && ctx.Err() == nil {
					e.Log.Warn("sweeping sessions", "err", err)
				}
			}
		}
	})
	return svcrun.Parts{Web: app.Fiber(), Workers: []svcrun.Worker{sweep}}, nil
}
