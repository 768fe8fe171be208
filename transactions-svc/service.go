// Package transactionssvc is transactions-svc: transactions with their
// receivables and payables, the state machines and lifecycle actions, the
// sandbox rail, the hosted pay and payout pages, transaction field
// definitions, campaigns and the scheduler. Run wires it together on
// libs/svcrun.
package transactionssvc

import (
	"context"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
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

// clock is the type of the WithClock seam.
type clock func() time.Time

// WithClock replaces time.Now in the use cases and the scheduler (tests
// drive the scheduler with it).
func WithClock(now func() time.Time) svcrun.Option { return svcrun.WithSeam(clock(now)) }

// Run serves transactions-svc until ctx is done, then shuts down
// gracefully (libs/svcrun): the API and the hosted pages on HTTPAddr, the
// scheduler, the idempotency-key cleanup and, with brokers, the outbox
// relay and the message and tenant consumers.
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e) },
	}, opts...)
}

// build wires the use cases, the routes and the workers on the pool.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	signer, err := links.NewSigner(cfg.LinkKey, cfg.PublicBaseURL)
	if err != nil {
		return svcrun.Parts{}, fmt.Errorf("link signer: %w", err)
	}
	now, _ := svcrun.Seam[clock](e)
	st := store.New(e.Pool)
	st.ListCap, _ = svcrun.Seam[listtotal.Cap](e)
	rails, err := railmetrics.New(e.Registry, "sandbox", "stripe")
	if err != nil {
		return svcrun.Parts{}, err
	}
	uc := app.New(st, peers.NewContacts(cfg.ContactsURL, nil, cfg.ContactsTimeout), signer, now).WithRailMetrics(rails)
	if cfg.RailEncryptionKey != nil {
		sl, err := sealer.New(cfg.RailEncryptionKey)
		if err != nil {
			return svcrun.Parts{}, fmt.Errorf("rail sealer: %w", err)
		}
		uc.WithRails(&app.Rails{Stripe: striperail.New(striperail.Config{APIBase: cfg.StripeAPIBase, Timeout: cfg.StripeTimeout}),
			Sealer: sl, PublicBase: cfg.PublicBaseURL})
	}
	web := e.NewApp(fiber.Config{BodyLimit: httpapi.MaxBody})
	pages.Register(web, pages.Deps{App: uc, Signer: signer, Log: e.Log})
	httpapi.Register(web, httpapi.Deps{App: uc, Verifier: authz.NewVerifier(cfg.jwksURL(), nil), Pool: e.Pool, Log: e.Log})
	return svcrun.Parts{Web: web, Workers: workers(cfg, st, uc, e)}, nil
}

// workers are the background loops; each ends with the service.
func workers(cfg Config, st *store.Store, uc *app.App, e *svcrun.Env) []svcrun.Worker {
	ws := []svcrun.Worker{
		svcrun.Loop("cleanup", func(ctx context.Context) {
			tenancy.DeleteExpiredEvery(ctx, e.Pool, cleanupInterval, e.Log, "idempotency_keys", "transaction_batch_rows",
				"notifications", "ai_confirmations")
		}),
		svcrun.Loop("scheduler", scheduler.New(st, uc, cfg.SchedulerInterval, e.Log).Run),
	}
	if len(cfg.KafkaBrokers) == 0 {
		return ws
	}
	return append(ws,
		svcrun.Worker{Name: "outbox relay", Run: outbox.NewRelay(e.Pool, cfg.KafkaBrokers, e.Log).Run},
		svcrun.Worker{Name: "message consumer", Run: func(ctx context.Context) error { return consumer.Run(ctx, cfg.KafkaBrokers, uc, e.Log) }},
		svcrun.Worker{Name: "tenant consumer", Run: func(ctx context.Context) error { return consumer.RunTenants(ctx, cfg.KafkaBrokers, uc, e.Log) }})
}
