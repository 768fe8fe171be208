// Package webhooksvc is webhook-svc: tenants' webhook endpoints, the events
// they subscribe to, and the signed, retried deliveries of those events.
// Run wires it together on libs/svcrun.
package webhooksvc

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/httpapi"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/migrations"
)

// serviceName labels logs and metrics.
const serviceName = "webhook-svc"

const (
	cleanupInterval   = time.Hour
	inboxRetention    = 14 * 24 * time.Hour
	jwksClientTimeout = 5 * time.Second
)

// rootPool is the type of the WithRootCAs seam.
type rootPool struct{ pool *x509.CertPool }

// WithRootCAs replaces the system roots as the base trust store of
// deliveries (the devstack passes a pool of its own CA; tests their
// receivers'); WEBHOOK_EXTRA_CA_FILE adds to it.
func WithRootCAs(pool *x509.CertPool) svcrun.Option { return svcrun.WithSeam(rootPool{pool}) }

// Run serves webhook-svc until ctx is done, then shuts down gracefully
// (libs/svcrun): the API on HTTPAddr, the event consumer (when brokers are
// configured), the dispatcher of deliveries and the cleanups.
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e) },
	}, opts...)
}

// build wires the sealer, the dispatcher, the routes and the workers.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	sl, err := sealer.New(cfg.EncryptionKey)
	if err != nil {
		return svcrun.Parts{}, err
	}
	base, _ := svcrun.Seam[rootPool](e)
	roots, err := rootCAs(cfg.ExtraCAFile, base.pool)
	if err != nil {
		return svcrun.Parts{}, err
	}
	st := store.New(e.Pool)
	st.ListCap, _ = svcrun.Seam[listtotal.Cap](e)
	d, err := dispatch.New(dispatch.Options{
		Store: st, Sealer: sl, Log: e.Log, Metrics: e.Registry,
		Concurrency: cfg.DispatchConcurrency, PollInterval: cfg.PollInterval, TimeScale: cfg.RetryTimeScale,
		Transport: netguard.Options{Allow: cfg.AllowCIDRs, RootCAs: roots},
	})
	if err != nil {
		return svcrun.Parts{}, err
	}
	web := e.NewApp()
	verifier := authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+"/internal/v1/jwks",
		&http.Client{Timeout: jwksClientTimeout})
	httpapi.Register(web, app.New(st, sl, nil), e.Pool, verifier)
	return svcrun.Parts{Web: web, Workers: workers(cfg, e, st, d), LogAttrs: []any{"allow_cidrs", len(cfg.AllowCIDRs)}}, nil
}

// workers are the dispatcher, the event consumers (with brokers) and the
// periodic cleanups.
func workers(cfg Config, e *svcrun.Env, st *store.Store, d *dispatch.Dispatcher) []svcrun.Worker {
	ws := []svcrun.Worker{
		{Name: "dispatcher", Run: d.Run},
		svcrun.Loop("cleanup", func(ctx context.Context) { idempotency.CleanupEvery(ctx, e.Pool, cleanupInterval, e.Log) }),
		svcrun.Loop("inbox pruning", func(ctx context.Context) { inbox.PruneEvery(ctx, e.Pool, inboxRetention, cleanupInterval, e.Log) }),
	}
	if len(cfg.KafkaBrokers) > 0 {
		in := ingest.New(st, nil, e.Log, d.Wake)
		for range cfg.Consumers {
			ws = append(ws, svcrun.Worker{Name: "event consumer", Run: func(ctx context.Context) error { return in.Run(ctx, cfg.KafkaBrokers) }})
		}
	}
	return ws
}

// rootCAs is the trust store of deliveries: base when set (it is then the
// whole base: devstack passes its own CA), else the system's, plus the CAs
// of caFile. Nil (the system's alone) when neither is set.
func rootCAs(caFile string, base *x509.CertPool) (*x509.CertPool, error) {
	if caFile == "" {
		return base, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading WEBHOOK_EXTRA_CA_FILE: %w", err)
	}
	if base != nil {
		pool := base.Clone()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("WEBHOOK_EXTRA_CA_FILE holds no PEM certificate")
		}
		return pool, nil
	}
	pool, err := netguard.RootCAs(pem)
	if err != nil {
		return nil, fmt.Errorf("WEBHOOK_EXTRA_CA_FILE: %w", err)
	}
	return pool, nil
}
