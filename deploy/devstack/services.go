package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	contactssvc "github.com/paylane/paylane/contacts-svc"
	identitysvc "github.com/paylane/paylane/identity-svc"
)

// deps is what the devstack hands a service.
type deps struct {
	ownerDSN, appDSN string
	brokers          []string
	secrets          Secrets
	// identityURL is the base URL of identity-svc (JWKS, introspection);
	// empty for identity-svc itself.
	identityURL string
	// publicURL is the gateway's public base URL (https://localhost:<port>),
	// the start of every link a service sends.
	publicURL string
	// caFile is the local CA: services that call the gateway's HTTPS
	// listener (webhook receivers in tests) trust it.
	caFile string
	logger *slog.Logger
}

// service is one row of the stack. A service joins the devstack by adding
// a row here: its database (created with owner and app roles), the stage it
// starts in, the path prefixes the gateway forwards to it, and how to run
// it through its Run(ctx, Config).
type service struct {
	// name names the database, its roles (<name>_owner, <name>_app) and the
	// service in logs and Info.Services.
	name string
	// stage orders the start: every service of a stage starts at once, after
	// all services of earlier stages are ready. identity-svc is stage 0
	// because every other service verifies tokens with its JWKS.
	stage int
	// routes are /api/v1 (and /l, /webhooks) prefixes the gateway forwards.
	routes []string
	// adminRoutes are /admin/v1 prefixes the gateway's admin listener forwards.
	adminRoutes []string
	// run runs the service until ctx is done, calling ready with its bound
	// HTTP address once it listens.
	run func(ctx context.Context, d deps, ready func(httpAddr string)) error
}

// services is the table of the stack's services.
func services() []service {
	return []service{
		{name: "identity", stage: 0, adminRoutes: []string{"/admin/v1/tenants"}, run: runIdentity},
		{name: "contacts", stage: 1, routes: []string{"/api/v1/contacts", "/api/v1/contact-field-definitions"}, run: runContacts},
	}
}

func runIdentity(ctx context.Context, d deps, ready func(string)) error {
	return identitysvc.Run(ctx, identitysvc.Config{
		HTTPAddr:           "127.0.0.1:0",
		InternalAddr:       "127.0.0.1:0",
		DatabaseURL:        d.appDSN,
		MigrateDatabaseURL: d.ownerDSN,
		DBMaxConns:         10,
		KafkaBrokers:       d.brokers,
		SigningKey:         d.secrets.SigningKey,
		AdminToken:         d.secrets.AdminToken,
		ServiceSecret:      d.secrets.ServiceSecret,
		InternalTokenTTL:   60 * time.Second,
		Logger:             d.logger,
		Ready:              func(a identitysvc.Addrs) { ready(a.HTTP) },
	})
}

func runContacts(ctx context.Context, d deps, ready func(string)) error {
	return contactssvc.Run(ctx, contactssvc.Config{
		HTTPAddr:           "127.0.0.1:0",
		InternalAddr:       "127.0.0.1:0",
		DatabaseURL:        d.appDSN,
		MigrateDatabaseURL: d.ownerDSN,
		DBMaxConns:         10,
		KafkaBrokers:       d.brokers,
		IdentityURL:        d.identityURL,
		DefaultRegion:      "US",
		Logger:             d.logger,
		Ready:              func(a contactssvc.Addrs) { ready(a.HTTP) },
	})
}

// lastStage is the highest stage of the table.
func lastStage(rows []service) int {
	last := 0
	for _, r := range rows {
		last = max(last, r.stage)
	}
	return last
}

// exitError turns the end of a service goroutine into the group's result: a
// stop caused by ctx is clean, and a service that returns on its own (even
// with nil) stops the stack, since nothing would serve its routes.
func exitError(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	if err == nil {
		return fmt.Errorf("%s stopped unexpectedly", name)
	}
	return fmt.Errorf("%s: %w", name, err)
}
