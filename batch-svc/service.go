// Package batchsvc is batch-svc: asynchronous batch ingest. It owns the
// batch headers, the stored items and the row errors, accepts submissions
// (POST /api/v1/{contacts,receivables,payables}/batch), serves the batch
// reads (/api/v1/batches) and runs the workers that write the items through
// the services owning the records. Run wires it together on libs/svcrun.
package batchsvc

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/httpapi"
	"github.com/paylane/paylane/batch-svc/internal/peers"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/svcrun"
)

const (
	cleanupInterval = time.Hour
	jwksPath        = "/internal/v1/jwks"
	// bodyLimit is a batch's payload limit (the gateway answers 413
	// batch_payload_too_large above it first).
	bodyLimit = 5 << 20
)

// Tokens issues the workers' service tokens (see WithTokens).
type Tokens = peers.Tokens

// WithTokens replaces identity-svc's service tokens (tests).
func WithTokens(t Tokens) svcrun.Option { return svcrun.WithSeam(t) }

// Run serves batch-svc until ctx is done, then shuts down gracefully
// (libs/svcrun): the HTTP listener drains, each worker finishes its chunk
// in flight and releases its batch, the relay stops.
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return buildService(cfg, e) },
	}, opts...)
}

// buildService wires the use cases, the routes and the workers.
func buildService(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	var relay *outbox.Relay
	if len(cfg.KafkaBrokers) > 0 {
		relay = outbox.NewRelay(e.Pool, cfg.KafkaBrokers, e.Log)
	}
	metrics, err := app.NewMetrics(e.Registry)
	if err != nil {
		return svcrun.Parts{}, err
	}
	if err := e.Registry.Register(store.New(e.Pool).QueueCollector()); err != nil {
		return svcrun.Parts{}, fmt.Errorf("registering batch queue metrics: %w", err)
	}
	tokens, _ := svcrun.Seam[Tokens](e)
	listCap, _ := svcrun.Seam[listtotal.Cap](e)
	p := build(cfg, tokens, e.Pool, listCap, relay, metrics, e.Log)
	web := e.NewApp(fiber.Config{BodyLimit: bodyLimit})
	httpapi.Register(web, p.app, e.Pool, authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+jwksPath, nil))
	parts := svcrun.Parts{Web: web, LogAttrs: []any{"workers", cfg.Workers}, Workers: []svcrun.Worker{
		svcrun.Loop("batch workers", p.workers.Run),
		svcrun.Loop("cleanup", func(ctx context.Context) { idempotency.CleanupEvery(ctx, e.Pool, cleanupInterval, e.Log) }),
	}}
	if relay != nil {
		parts.Workers = append(parts.Workers, svcrun.Worker{Name: "outbox relay", Run: relay.Run})
	}
	return parts, nil
}
