package devstack

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	batchsvc "github.com/paylane/paylane/batch-svc"
	contactssvc "github.com/paylane/paylane/contacts-svc"
	dashboardsvc "github.com/paylane/paylane/dashboard-svc"
	identitysvc "github.com/paylane/paylane/identity-svc"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
	optinsvc "github.com/paylane/paylane/optin-svc"
	transactionssvc "github.com/paylane/paylane/transactions-svc"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

// deps is what the devstack hands a service.
type deps struct {
	// httpAddr is the service's HTTP listener, chosen by the devstack.
	httpAddr     string
	httpListener net.Listener // bound at httpAddr (see startServices); in-process only
	// internalAddr is the service's internal listener (/readyz, /metrics).
	internalAddr     string
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
	// stripeURL is the local stripe-mock, Stripe's API for the Stripe rail
	// (empty: the rail is off).
	stripeURL string
	logger    *slog.Logger
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
	// binary is the service's command (<binary>/cmd/<binary> in the module of
	// that name) and env its whole environment, for the process mode: the
	// same settings run passes in its Config, as the variables its
	// ConfigFromEnv reads.
	binary string
	env    func(d deps) []string
}

// services is the table of the stack's services.
func services() []service {
	return []service{
		{name: "identity", stage: 0, adminRoutes: []string{"/admin/v1/tenants"}, run: runIdentity,
			binary: "identity-svc", env: identityEnv},
		{name: "contacts", stage: 1, routes: []string{"/api/v1/contacts", "/api/v1/contact-field-definitions"}, run: runContacts,
			binary: "contacts-svc", env: contactsEnv},
		{name: "optin", stage: 1, run: runOptin, binary: "optin-svc", env: optinEnv,
			routes:      []string{"/api/v1/suppression-list", "/api/v1/opt-in-codes", "/api/v1/opt-ins", "/l/o", "/webhooks/sms"},
			adminRoutes: []string{"/admin/v1/tenants/*/opt-in-codes", "/admin/v1/tenants/*/messages"}},
		{name: "transactions", stage: 1, run: runTransactions, binary: "transactions-svc", env: transactionsEnv,
			routes: []string{"/api/v1/receivables", "/api/v1/payables", "/api/v1/transactions",
				"/api/v1/transaction-field-definitions", "/api/v1/campaigns", "/api/v1/payment-rail", "/l/r", "/l/p",
				"/webhooks/rails"}},
		{name: "webhook", stage: 1, routes: []string{"/api/v1/webhook-endpoints"}, run: runWebhook,
			binary: "webhook-svc", env: webhookEnv},
		{name: "batch", stage: 1, run: runBatch, binary: "batch-svc", env: batchEnv,
			routes: []string{"/api/v1/contacts/batch", "/api/v1/receivables/batch", "/api/v1/payables/batch", "/api/v1/batches"}},
		{name: "ai-gateway", stage: 1, noDatabase: true, routes: []string{"/api/v1/gateway"}, run: runAIGateway,
			binary: "ai-gateway-svc", env: aiGatewayEnv},
		{name: "dashboard", stage: 1, routes: []string{"/dashboard"}, run: runDashboard,
			binary: "dashboard-svc", env: dashboardEnv},
	}
}

func runIdentity(ctx context.Context, d deps, ready func(string)) error {
	return identitysvc.Run(ctx, identityConfig(d), runOptions(d, ready)...)
}

func identityConfig(d deps) identitysvc.Config {
	return identitysvc.Config{
		Base:             base(d),
		SigningKey:       d.secrets.SigningKey,
		AdminToken:       d.secrets.AdminToken,
		ServiceSecret:    d.secrets.ServiceSecret,
		InternalTokenTTL: 60 * time.Second,
		PublicBaseURL:    d.publicURL,
	}
}

func identityEnv(d deps) []string {
	return append(commonEnv(d),
		"SIGNING_KEY="+b64(d.secrets.SigningKey),
		"ADMIN_TOKEN="+d.secrets.AdminToken,
		"SERVICE_SECRET="+d.secrets.ServiceSecret,
		"INTERNAL_TOKEN_TTL=60s",
		"PUBLIC_BASE_URL="+d.publicURL)
}

func runContacts(ctx context.Context, d deps, ready func(string)) error {
	return contactssvc.Run(ctx, contactsConfig(d), runOptions(d, ready)...)
}

func contactsConfig(d deps) contactssvc.Config {
	return contactssvc.Config{
		Base:           base(d),
		OptInURL:       d.urls["optin"],
		OptInCacheTTL:  contactssvc.DefaultOptInCacheTTL,
		OptInCacheSize: contactssvc.DefaultOptInCacheSize,
		DefaultRegion:  "US",
	}
}

func contactsEnv(d deps) []string {
	return append(commonEnv(d),
		"OPTIN_URL="+d.urls["optin"],
		"OPTIN_CACHE_TTL="+contactssvc.DefaultOptInCacheTTL.String(),
		"OPTIN_CACHE_SIZE="+strconv.Itoa(contactssvc.DefaultOptInCacheSize),
		"DEFAULT_REGION=US")
}

func runTransactions(ctx context.Context, d deps, ready func(string)) error {
	return transactionssvc.Run(ctx, transactionsConfig(d), runOptions(d, ready)...)
}

func transactionsConfig(d deps) transactionssvc.Config {
	return transactionssvc.Config{
		Base:              base(d),
		ContactsURL:       d.urls["contacts"],
		ContactsTimeout:   3 * time.Second,
		LinkKey:           d.secrets.LinkKey,
		PublicBaseURL:     d.publicURL,
		SchedulerInterval: time.Second,
		RailEncryptionKey: railKey(d),
		StripeAPIBase:     d.stripeURL,
		StripeTimeout:     10 * time.Second,
	}
}

// railKey is the rail encryption key when the Stripe rail is on (a
// stripe-mock runs), else nil: without the key transactions-svc keeps every
// tenant on the sandbox rail.
func railKey(d deps) []byte {
	if d.stripeURL == "" {
		return nil
	}
	return d.secrets.RailEncryptionKey
}

func transactionsEnv(d deps) []string {
	return append(commonEnv(d),
		"CONTACTS_URL="+d.urls["contacts"],
		"CONTACTS_TIMEOUT=3s",
		"LINK_KEY="+b64(d.secrets.LinkKey),
		"PUBLIC_BASE_URL="+d.publicURL,
		"SCHEDULER_INTERVAL=1s",
		"RAIL_ENCRYPTION_KEY="+b64(railKey(d)),
		"STRIPE_API_BASE="+d.stripeURL,
		"STRIPE_TIMEOUT=10s")
}

func runBatch(ctx context.Context, d deps, ready func(string)) error {
	return batchsvc.Run(ctx, batchConfig(d), runOptions(d, ready)...)
}

func batchConfig(d deps) batchsvc.Config {
	cfg := batchsvc.Defaults()
	cfg.Base, cfg.ServiceSecret = base(d), d.secrets.ServiceSecret
	cfg.ContactsURL, cfg.TransactionsURL, cfg.PublicBaseURL = d.urls["contacts"], d.urls["transactions"], d.publicURL
	return cfg
}

// batchEnv leaves the BATCH_* knobs at batchsvc.Defaults, as batchConfig
// does.
func batchEnv(d deps) []string {
	return append(commonEnv(d),
		"SERVICE_SECRET="+d.secrets.ServiceSecret,
		"CONTACTS_URL="+d.urls["contacts"],
		"TRANSACTIONS_URL="+d.urls["transactions"],
		"PUBLIC_BASE_URL="+d.publicURL)
}

func runAIGateway(ctx context.Context, d deps, ready func(string)) error {
	return aigatewaysvc.Run(ctx, aiGatewayConfig(d), runOptions(d, ready)...)
}

func aiGatewayConfig(d deps) aigatewaysvc.Config {
	return aigatewaysvc.Config{
		Base:            base(d),
		ContactsURL:     d.urls["contacts"],
		TransactionsURL: d.urls["transactions"],
	}
}

func aiGatewayEnv(d deps) []string {
	return append(commonEnv(d),
		"CONTACTS_URL="+d.urls["contacts"],
		"TRANSACTIONS_URL="+d.urls["transactions"])
}

func runDashboard(ctx context.Context, d deps, ready func(string)) error {
	return dashboardsvc.Run(ctx, dashboardConfig(d), runOptions(d, ready)...)
}

func dashboardConfig(d deps) dashboardsvc.Config {
	return dashboardsvc.Config{
		Base:            base(d),
		TransactionsURL: d.urls["transactions"],
		WebhookURL:      d.urls["webhook"],
		ContactsURL:     d.urls["contacts"],
		OptInURL:        d.urls["optin"],
		BatchURL:        d.urls["batch"],
		ServiceSecret:   d.secrets.ServiceSecret,
	}
}

func dashboardEnv(d deps) []string {
	return append(commonEnv(d),
		"TRANSACTIONS_URL="+d.urls["transactions"],
		"WEBHOOK_URL="+d.urls["webhook"],
		"CONTACTS_URL="+d.urls["contacts"],
		"OPTIN_URL="+d.urls["optin"],
		"BATCH_URL="+d.urls["batch"],
		"SERVICE_SECRET="+d.secrets.ServiceSecret)
}

// loopbackOnly lets the local stack deliver webhooks to receivers on this
// machine, and nowhere else private.
func loopbackOnly() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

func runWebhook(ctx context.Context, d deps, ready func(string)) error {
	return webhooksvc.Run(ctx, webhookConfig(d), runOptions(d, ready)...)
}

func webhookConfig(d deps) webhooksvc.Config {
	return webhooksvc.Config{
		Base:                base(d),
		EncryptionKey:       d.secrets.WebhookEncryptionKey,
		AllowCIDRs:          loopbackOnly(),
		ExtraCAFile:         d.caFile,
		Consumers:           3,
		DispatchConcurrency: 64,
		PollInterval:        250 * time.Millisecond,
		RetryTimeScale:      1,
	}
}

func webhookEnv(d deps) []string {
	return append(commonEnv(d),
		"WEBHOOK_ENCRYPTION_KEY="+b64(d.secrets.WebhookEncryptionKey),
		"WEBHOOK_ALLOW_CIDRS=127.0.0.0/8,::1/128",
		"WEBHOOK_EXTRA_CA_FILE="+d.caFile,
		"WEBHOOK_CONSUMERS=3",
		"WEBHOOK_DISPATCH_CONCURRENCY=64",
		"WEBHOOK_POLL_INTERVAL=250ms")
}

// devSenderNumber is the sender of the local stack's SMS (the sink provider
// stores them; nothing leaves the machine).
const devSenderNumber = "+15005550006"

func runOptin(ctx context.Context, d deps, ready func(string)) error {
	return optinsvc.Run(ctx, optinConfig(d), runOptions(d, ready)...)
}

func optinConfig(d deps) optinsvc.Config {
	return optinsvc.Config{
		Base:             base(d),
		ServiceSecret:    d.secrets.ServiceSecret,
		ContactsURL:      d.urls["contacts"],
		TransactionsURL:  d.urls["transactions"],
		AdminToken:       d.secrets.AdminToken,
		PublicBaseURL:    d.publicURL,
		DefaultRegion:    "US",
		SMSProvider:      "sink",
		TwilioBaseURL:    optinsvc.DefaultTwilioBaseURL,
		SMSDefaultFrom:   devSenderNumber,
		SMSAuthToken:     d.secrets.SMSAuthToken,
		SendMaxAttempts:  6,
		SendRetryBase:    2 * time.Second,
		SendPollInterval: 200 * time.Millisecond,
	}
}

func optinEnv(d deps) []string {
	return append(commonEnv(d),
		"SERVICE_SECRET="+d.secrets.ServiceSecret,
		"CONTACTS_URL="+d.urls["contacts"],
		"TRANSACTIONS_URL="+d.urls["transactions"],
		"ADMIN_TOKEN="+d.secrets.AdminToken,
		"PUBLIC_BASE_URL="+d.publicURL,
		"DEFAULT_REGION=US",
		"SMS_PROVIDER=sink",
		"SMS_DEFAULT_FROM="+devSenderNumber,
		"SMS_AUTH_TOKEN="+d.secrets.SMSAuthToken,
		"SMS_SEND_MAX_ATTEMPTS=6",
		"SMS_SEND_RETRY_BASE=2s",
		"SMS_SEND_POLL_INTERVAL=200ms")
}

// base is the configuration every service shares (envconf.Base), as
// commonEnv writes it.
func base(d deps) envconf.Base {
	return envconf.Base{HTTPAddr: d.httpAddr, InternalAddr: d.internalAddr, DatabaseURL: d.appDSN,
		MigrateDatabaseURL: d.ownerDSN, DBMaxConns: 10, KafkaBrokers: d.brokers, IdentityURL: d.identityURL}
}

// runOptions hand a service its bound listener and logger, and learn its
// HTTP address once it listens.
func runOptions(d deps, ready func(string)) []svcrun.Option {
	return []svcrun.Option{svcrun.WithListener(d.httpListener), svcrun.WithLogger(d.logger),
		svcrun.WithReady(func(a svcrun.Addrs) { ready(a.HTTP) })}
}

// commonEnv is what every service process reads (compose's service-env):
// its listeners, the broker, identity-svc's URL, the log level and, for a
// service with a database, the app role's DSN and pool size. Migrations run
// before the process starts (`<binary> migrate`, as compose's one-shot
// migrate containers), so MIGRATE_DATABASE_URL is left out.
func commonEnv(d deps) []string {
	env := []string{
		"HTTP_ADDR=" + d.httpAddr,
		"INTERNAL_ADDR=" + d.internalAddr,
		"KAFKA_BROKERS=" + strings.Join(d.brokers, ","),
		"LOG_LEVEL=info",
	}
	if d.identityURL != "" {
		env = append(env, "IDENTITY_URL="+d.identityURL)
	}
	if d.appDSN != "" {
		env = append(env, "DATABASE_URL="+d.appDSN, "DB_MAX_CONNS=10")
	}
	return env
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

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
