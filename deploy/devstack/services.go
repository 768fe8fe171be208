package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	batchsvc "github.com/paylane/paylane/batch-svc"
	contactssvc "github.com/paylane/paylane/contacts-svc"
	identitysvc "github.com/paylane/paylane/identity-svc"
	optinsvc "github.com/paylane/paylane/optin-svc"
	transactionssvc "github.com/paylane/paylane/transactions-svc"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

// deps is what the devstack hands a service.
type deps struct {
	// httpAddr is the service's HTTP listener, chosen by the devstack.
	httpAddr         string
	httpListener     net.Listener // bound at httpAddr (see startServices)
	ownerDSN, appDSN string
	brokers          []string
	secrets          Secrets
	// identityURL is the base URL of identity-svc (JWKS, introspection);
	// empty for identity-svc itself.
	identityURL string
	// urls are the base URLs of the services already started, by name.
	urls map[string]string
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
	// noDatabase marks a service that owns no data (ai-gateway): the
	// devstack creates no database or roles for it.
	noDatabase bool
	// run runs the service until ctx is done, calling ready with its bound
	// HTTP address once it listens.
	run func(ctx context.Context, d deps, ready func(httpAddr string)) error
}

// services is the table of the stack's services.
func services() []service {
	return []service{
		{name: "identity", stage: 0, adminRoutes: []string{"/admin/v1/tenants"}, run: runIdentity},
		{name: "contacts", stage: 1, routes: []string{"/api/v1/contacts", "/api/v1/contact-field-definitions"}, run: runContacts},
		{name: "optin", stage: 1, run: runOptin,
			routes:      []string{"/api/v1/suppression-list", "/api/v1/opt-in-codes", "/api/v1/opt-ins", "/l/o", "/webhooks/sms"},
			adminRoutes: []string{"/admin/v1/tenants/*/opt-in-codes", "/admin/v1/tenants/*/messages"}},
		{name: "transactions", stage: 1, run: runTransactions,
			routes: []string{"/api/v1/receivables", "/api/v1/payables", "/api/v1/transactions",
				"/api/v1/transaction-field-definitions", "/api/v1/campaigns", "/l/r", "/l/p"}},
		{name: "webhook", stage: 1, routes: []string{"/api/v1/webhook-endpoints"}, run: runWebhook},
		{name: "batch", stage: 1, run: runBatch,
			routes: []string{"/api/v1/contacts/batch", "/api/v1/receivables/batch", "/api/v1/payables/batch", "/api/v1/batches"}},
		{name: "ai-gateway", stage: 1, noDatabase: true, routes: []string{"/api/v1/gateway"}, run: runAIGateway},
	}
}

func runIdentity(ctx context.Context, d deps, ready func(string)) error {
	return identitysvc.Run(ctx, identitysvc.Config{
		HTTPAddr:           d.httpAddr,
		HTTPListener:       d.httpListener,
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
		HTTPAddr:           d.httpAddr,
		HTTPListener:       d.httpListener,
		InternalAddr:       "127.0.0.1:0",
		DatabaseURL:        d.appDSN,
		MigrateDatabaseURL: d.ownerDSN,
		DBMaxConns:         10,
		KafkaBrokers:       d.brokers,
		IdentityURL:        d.identityURL,
		OptInURL:           d.urls["optin"],
		OptInCacheTTL:      contactssvc.DefaultOptInCacheTTL,
		OptInCacheSize:     contactssvc.DefaultOptInCacheSize,
		DefaultRegion:      "US",
		Logger:             d.logger,
		Ready:              func(a contactssvc.Addrs) { ready(a.HTTP) },
	})
}

func runTransactions(ctx context.Context, d deps, ready func(string)) error {
	return transactionssvc.Run(ctx, transactionssvc.Config{
		HTTPAddr:           d.httpAddr,
		HTTPListener:       d.httpListener,
		InternalAddr:       "127.0.0.1:0",
		DatabaseURL:        d.appDSN,
		MigrateDatabaseURL: d.ownerDSN,
		DBMaxConns:         10,
		KafkaBrokers:       d.brokers,
		IdentityURL:        d.identityURL,
		ContactsURL:        d.urls["contacts"],
		ContactsTimeout:    3 * time.Second,
		LinkKey:            d.secrets.LinkKey,
		PublicBaseURL:      d.publicURL,
		SchedulerInterval:  time.Second,
		Logger:             d.logger,
		Ready:              func(a transactionssvc.Addrs) { ready(a.HTTP) },
	})
}

func runBatch(ctx context.Context, d deps, ready func(string)) error {
	cfg := batchsvc.Defaults()
	cfg.HTTPAddr, cfg.HTTPListener, cfg.InternalAddr = d.httpAddr, d.httpListener, "127.0.0.1:0"
	cfg.DatabaseURL, cfg.MigrateDatabaseURL, cfg.KafkaBrokers = d.appDSN, d.ownerDSN, d.brokers
	cfg.IdentityURL, cfg.ServiceSecret = d.identityURL, d.secrets.ServiceSecret
	cfg.ContactsURL, cfg.TransactionsURL, cfg.PublicBaseURL = d.urls["contacts"], d.urls["transactions"], d.publicURL
	cfg.Logger = d.logger
	cfg.Ready = func(a batchsvc.Addrs) { ready(a.HTTP) }
	return batchsvc.Run(ctx, cfg)
}

func runAIGateway(ctx context.Context, d deps, ready func(string)) error {
	return aigatewaysvc.Run(ctx, aigatewaysvc.Config{
		HTTPAddr:        d.httpAddr,
		HTTPListener:    d.httpListener,
		InternalAddr:    "127.0.0.1:0",
		IdentityURL:     d.identityURL,
		ContactsURL:     d.urls["contacts"],
		TransactionsURL: d.urls["transactions"],
		Logger:          d.logger,
		Ready:           func(a aigatewaysvc.Addrs) { ready(a.HTTP) },
	})
}

// loopbackOnly lets the local stack deliver webhooks to receivers on this
// machine, and nowhere else private.
func loopbackOnly() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

func runWebhook(ctx context.Context, d deps, ready func(string)) error {
	return webhooksvc.Run(ctx, webhooksvc.Config{
		HTTPAddr:            d.httpAddr,
		HTTPListener:        d.httpListener,
		InternalAddr:        "127.0.0.1:0",
		DatabaseURL:         d.appDSN,
		MigrateDatabaseURL:  d.ownerDSN,
		DBMaxConns:          10,
		KafkaBrokers:        d.brokers,
		IdentityURL:         d.identityURL,
		EncryptionKey:       d.secrets.WebhookEncryptionKey,
		AllowCIDRs:          loopbackOnly(),
		ExtraCAFile:         d.caFile,
		Consumers:           3,
		DispatchConcurrency: 64,
		PollInterval:        250 * time.Millisecond,
		Logger:              d.logger,
		Ready:               func(a webhooksvc.Addrs) { ready(a.HTTP) },
	})
}

// devSenderNumber is the sender of the local stack's SMS (the sink provider
// stores them; nothing leaves the machine).
const devSenderNumber = "+15005550006"

func runOptin(ctx context.Context, d deps, ready func(string)) error {
	return optinsvc.Run(ctx, optinsvc.Config{
		HTTPAddr:           d.httpAddr,
		HTTPListener:       d.httpListener,
		InternalAddr:       "127.0.0.1:0",
		DatabaseURL:        d.appDSN,
		MigrateDatabaseURL: d.ownerDSN,
		DBMaxConns:         10,
		KafkaBrokers:       d.brokers,
		IdentityURL:        d.identityURL,
		ServiceSecret:      d.secrets.ServiceSecret,
		ContactsURL:        d.urls["contacts"],
		TransactionsURL:    d.urls["transactions"],
		AdminToken:         d.secrets.AdminToken,
		PublicBaseURL:      d.publicURL,
		DefaultRegion:      "US",
		SMSProvider:        "sink",
		SMSDefaultFrom:     devSenderNumber,
		SMSAuthToken:       d.secrets.SMSAuthToken,
		SendMaxAttempts:    6,
		SendRetryBase:      2 * time.Second,
		SendPollInterval:   200 * time.Millisecond,
		Logger:             d.logger,
		Ready:              func(a optinsvc.Addrs) { ready(a.HTTP) },
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
