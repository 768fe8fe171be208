package optinsvc

import (
	"context"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/httpapi"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// build wires the use cases, the routes and the workers.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	metrics, err := app.NewMetrics(e.Registry, newProvider(cfg).Name())
	if err != nil {
		return svcrun.Parts{}, err
	}
	a := newApp(cfg, e, metrics)
	web := e.NewApp()
	httpapi.Register(web, httpapi.Deps{
		App:        a,
		Verifier:   authz.NewVerifier(trimSlash(cfg.IdentityURL)+jwksPath, nil),
		Pool:       e.Pool,
		AdminToken: cfg.AdminToken, SMSAuthToken: cfg.SMSAuthToken,
		PublicBaseURL: trimSlash(cfg.PublicBaseURL), Region: cfg.DefaultRegion, Log: e.Log,
	})
	return svcrun.Parts{Web: web, Workers: workers(cfg, e, a), LogAttrs: []any{"sms_provider", cfg.SMSProvider}}, nil
}

// newApp builds the use cases on the pool, the peers' clients and the SMS
// provider of the configuration.
func newApp(cfg Config, e *svcrun.Env, metrics *app.Metrics) *app.App {
	identityClient := newIdentityClient(cfg)
	contacts, ok := svcrun.Seam[Contacts](e)
	if !ok {
		contacts = newContactsClient(cfg, identityClient)
	}
	st := store.New(e.Pool)
	st.ListCap, _ = svcrun.Seam[listtotal.Cap](e)
	return app.New(app.Deps{
		Store: st, Contacts: contacts, Identity: identityTenants{client: identityClient},
		Transactions: newTransactionsClient(cfg, identityClient),
		Provider:     newProvider(cfg), Log: e.Log, Metrics: metrics,
		Sending: app.Sending{
			DefaultFrom: cfg.SMSDefaultFrom, DefaultTenant: cfg.SMSDefaultTenant,
			MaxAttempts: cfg.SendMaxAttempts, RetryBase: cfg.SendRetryBase,
			PublicBaseURL: trimSlash(cfg.PublicBaseURL), DefaultRegion: cfg.DefaultRegion,
		},
	})
}

// workers are the background work: idempotency key expiry, the message
// dispatcher and, with brokers, the outbox relay, the event consumer and
// inbox pruning.
func workers(cfg Config, e *svcrun.Env, a *app.App) []svcrun.Worker {
	pool, log := e.Pool, e.Log
	ws := []svcrun.Worker{
		svcrun.Loop("cleanup", func(ctx context.Context) { idempotency.CleanupEvery(ctx, pool, cleanupInterval, log) }),
		svcrun.Loop("message dispatcher", func(ctx context.Context) { a.RunDispatcher(ctx, cfg.SendPollInterval) }),
	}
	if len(cfg.KafkaBrokers) == 0 {
		return ws
	}
	return append(ws,
		svcrun.Worker{Name: "outbox relay", Run: outbox.NewRelay(pool, cfg.KafkaBrokers, log).Run},
		svcrun.Worker{Name: "event consumer", Run: func(ctx context.Context) error {
			return events.ConsumeBatch(ctx, cfg.KafkaBrokers, consumerGroup, app.ConsumedTopics(), events.BatchLimits{}, log, a.HandleBatch)
		}},
		svcrun.Loop("inbox pruning", func(ctx context.Context) { inbox.PruneEvery(ctx, pool, inboxRetention, pruneInterval, log) }),
	)
}
