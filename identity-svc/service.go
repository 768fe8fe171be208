// Package identitysvc is identity-svc: the deployment's tenants (the central
// routing table), their API tokens and abilities, flags and limits, and the
// key that signs internal tokens. Run wires it together.
package identitysvc

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/httpapi"
	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/svcrun"
)

// serviceName labels logs and metrics.
const serviceName = "identity-svc"

// Run serves identity-svc until ctx is done, then shuts down gracefully
// (libs/svcrun): the internal and admin API on HTTPAddr, probes and metrics
// on InternalAddr, the outbox relay to Kafka when brokers are configured,
// and the registration with cfg.Registrar, when set.
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Registrar: cfg.Registrar, AdvertiseHost: cfg.AdvertiseHost,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e) },
	}, opts...)
}

// build wires the use cases and routes on the pool.
func build(cfg Config, e *svcrun.Env) (svcrun.Parts, error) {
	signer, err := authz.NewSigner(cfg.SigningKey)
	if err != nil {
		return svcrun.Parts{}, fmt.Errorf("loading signing key: %w", err)
	}
	web := e.NewApp()
	httpapi.Register(web, app.New(store.New(e.Pool), signer, cfg.InternalTokenTTL).WithPublicURL(cfg.PublicBaseURL), signer.JWKS(), cfg.AdminToken, cfg.ServiceSecret)
	parts := svcrun.Parts{Web: web}
	if len(cfg.KafkaBrokers) > 0 {
		parts.Workers = append(parts.Workers, svcrun.Worker{Name: "outbox relay", Run: outbox.NewRelay(e.Pool, cfg.KafkaBrokers, e.Log).Run})
	}
	return parts, nil
}
