// Package contactssvc is contacts-svc: the tenant's contacts, their
// canonical phone records and the contact field definitions. Run wires it
// together on libs/svcrun: the HTTP listener with the public and internal
// routes, the outbox relay to Kafka, the expiry of idempotency keys and the
// follower of optin-svc's events that evicts cached opt-in answers.
package contactssvc

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/httpapi"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/tenancy"
)

const (
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

// Run serves contacts-svc until ctx is done, then shuts down gracefully
// (libs/svcrun).
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e), nil },
	}, opts...)
}

// build wires the use cases, the routes and the workers on the pool.
func build(cfg Config, e *svcrun.Env) svcrun.Parts {
	optIns, optInCache := cfg.optIns()
	var relay *outbox.Relay // nil: no relay, nothing to wake
	if len(cfg.KafkaBrokers) > 0 {
		relay = outbox.NewRelay(e.Pool, cfg.KafkaBrokers, e.Log)
	}
	web := e.NewApp(fiber.Config{BodyLimit: bodyLimit})
	st := store.New(e.Pool, relay)
	st.ListCap, _ = svcrun.Seam[listtotal.Cap](e)
	httpapi.Register(web, httpapi.Deps{
		App:      app.New(st, optIns),
		Verifier: authz.NewVerifier(cfg.jwksURL(), nil),
		Pool:     e.Pool,
		Region:   cfg.DefaultRegion,
	})
	parts := svcrun.Parts{Web: web, Workers: []svcrun.Worker{svcrun.Loop("cleanup", func(ctx context.Context) {
		tenancy.DeleteExpiredEvery(ctx, e.Pool, cleanupInterval, e.Log, "idempotency_keys", "contact_batch_rows")
	})}}
	if optInCache != nil && len(cfg.KafkaBrokers) > 0 {
		parts.Workers = append(parts.Workers, svcrun.Loop("opt-in cache", func(ctx context.Context) {
			followOptIns(ctx, cfg.KafkaBrokers, optInCache, e.Log)
		}))
	}
	if relay != nil {
		parts.Workers = append(parts.Workers, svcrun.Worker{Name: "outbox relay", Run: relay.Run})
	}
	return parts
}
