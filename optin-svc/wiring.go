package optin

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/httpapi"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// newApp builds the use cases on the pool, the peers' clients and the SMS
// provider of the configuration.
func newApp(cfg Config, pool *pgxpool.Pool, metrics *app.Metrics, log *slog.Logger) *app.App {
	identityClient := newIdentityClient(cfg)
	contacts := cfg.Contacts
	if contacts == nil {
		contacts = newContactsClient(cfg, identityClient)
	}
	return app.New(app.Deps{
		Store: store.New(pool), Contacts: contacts, Identity: identityTenants{client: identityClient},
		Transactions: newTransactionsClient(cfg, identityClient),
		Provider:     newProvider(cfg), Log: log, Metrics: metrics,
		Sending: app.Sending{
			DefaultFrom: cfg.SMSDefaultFrom, DefaultTenant: cfg.SMSDefaultTenant,
			MaxAttempts: cfg.SendMaxAttempts, RetryBase: cfg.SendRetryBase,
			PublicBaseURL: trimSlash(cfg.PublicBaseURL), DefaultRegion: cfg.DefaultRegion,
		},
	})
}

// newWeb builds the HTTP app with every route.
func newWeb(cfg Config, a *app.App, pool *pgxpool.Pool, reg prometheus.Registerer, tracing *obs.Tracing, log *slog.Logger) *fiber.App {
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	httpapi.Register(web, httpapi.Deps{
		App:        a,
		Verifier:   authz.NewVerifier(trimSlash(cfg.IdentityURL)+jwksPath, nil),
		Pool:       pool,
		AdminToken: cfg.AdminToken, SMSAuthToken: cfg.SMSAuthToken,
		PublicBaseURL: trimSlash(cfg.PublicBaseURL), Region: cfg.DefaultRegion, Log: log,
	})
	return web
}

// startWorkers starts the background work: idempotency key expiry, the
// message dispatcher and, with brokers, the outbox relay, the event
// consumer and inbox pruning. A worker that fails reports on the channel.
func startWorkers(ctx context.Context, cfg Config, pool *pgxpool.Pool, a *app.App, log *slog.Logger) (*sync.WaitGroup, <-chan error) {
	var workers sync.WaitGroup
	workerErr := make(chan error, 2) // one slot per worker that can fail
	workers.Go(func() { idempotency.CleanupEvery(ctx, pool, cleanupInterval, log) })
	workers.Go(func() { a.RunDispatcher(ctx, cfg.SendPollInterval) })
	if len(cfg.KafkaBrokers) == 0 {
		return &workers, workerErr
	}
	relay := outbox.NewRelay(pool, cfg.KafkaBrokers, log)
	workers.Go(func() {
		if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
			workerErr <- fmt.Errorf("outbox relay: %w", err)
		}
	})
	workers.Go(func() {
		err := events.Consume(ctx, cfg.KafkaBrokers, consumerGroup, app.ConsumedTopics(), log, a.HandleEvent)
		if err != nil && ctx.Err() == nil {
			workerErr <- fmt.Errorf("event consumer: %w", err)
		}
	})
	workers.Go(func() { inbox.PruneEvery(ctx, pool, inboxRetention, pruneInterval, log) })
	return &workers, workerErr
}
