// Package testsvc gives optin-svc's tests real infrastructure: identity-svc
// and optin-svc running in-process on port 0 with fresh migrated databases
// (libs/testkit), an optional in-process Kafka broker, transactions-svc's
// fake (transactions-svc/client/clienttest), tenants and tokens minted
// through identity-svc's admin API, and readers of the events optin-svc
// publishes.
package testsvc

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	contacts "github.com/paylane/paylane/contacts-svc"
	contactsmigrations "github.com/paylane/paylane/contacts-svc/migrations"
	identity "github.com/paylane/paylane/identity-svc"
	idclient "github.com/paylane/paylane/identity-svc/client"
	idmigrations "github.com/paylane/paylane/identity-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/migrations"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// Secrets of the services started here.
const (
	AdminToken    = "test-admin-token-0123456789"
	ServiceSecret = "test-service-secret-0123456789"
	SMSAuthToken  = "test-sms-auth-token-0123456789"
	PublicBaseURL = "https://pay.example.test"
	DefaultFrom   = "+15005550006"
)

// Options adjust the optin-svc a test starts.
type Options struct {
	// Brokers runs the relay, the consumer and the dispatcher against them.
	Brokers []string
	// RealContacts runs contacts-svc and lets optin-svc call it through
	// contacts-svc/client, instead of the Directory stand-in.
	RealContacts bool
	// Configure changes the configuration before Run.
	Configure func(*optin.Config)
}

// Env is identity-svc and optin-svc running for one test.
type Env struct {
	IdentityURL string
	// BaseURL is optin-svc's HTTP listener.
	BaseURL string
	// InternalAddr serves optin-svc's probes and metrics.
	InternalAddr string
	Admin        *idclient.Admin
	Identity     *idclient.Client
	// Contacts is the contacts-svc stand-in optin-svc resolves phones with
	// (unless Options.RealContacts).
	Contacts *Directory
	// ContactsURL is the contacts-svc of Options.RealContacts.
	ContactsURL string
	// Transactions stands in for transactions-svc: the notifications
	// optin-svc reads for notification.requested events.
	Transactions *transactionstest.Fake
	// Pool connects to optin-svc's database as the app role; Owner as the owner.
	Pool, Owner *pgxpool.Pool
	Config      optin.Config

	brokers []string
}

// Start runs identity-svc and optin-svc until the test ends.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	identityURL := startIdentity(t, opts.Brokers)
	return startOptin(t, identityURL, opts)
}

// StartAnother runs a second optin-svc, on a fresh database, beside the
// identity-svc of e (to configure it with tenants e created).
func (e *Env) StartAnother(t testing.TB, opts Options) *Env {
	t.Helper()
	return startOptin(t, e.IdentityURL, opts)
}

// startOptin runs optin-svc against the identity-svc at identityURL.
func startOptin(t testing.TB, identityURL string, opts Options) *Env {
	t.Helper()
	env := &Env{Contacts: NewDirectory(), IdentityURL: identityURL, brokers: opts.Brokers,
		Transactions: transactionstest.New(t)}
	env.Admin = idclient.NewAdmin(env.IdentityURL, AdminToken, nil)
	env.Identity = idclient.New(env.IdentityURL, nil)

	pg := testkit.PG(t)
	appDSN := pg.Database(t, "optin", migrations.Sets()...)
	env.Pool = pg.Pool(t, appDSN)
	env.Owner = pg.Pool(t, pg.OwnerDSN(t, appDSN))
	cfg := optin.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
			DatabaseURL: appDSN, DBMaxConns: 4, KafkaBrokers: opts.Brokers, IdentityURL: env.IdentityURL},
		ServiceSecret: ServiceSecret, ContactsURL: "http://127.0.0.1:1",
		TransactionsURL: env.Transactions.URL,
		AdminToken:      AdminToken, PublicBaseURL: PublicBaseURL, DefaultRegion: "US",
		SMSProvider: optin.ProviderSink, SMSDefaultFrom: DefaultFrom, SMSAuthToken: SMSAuthToken,
		SendMaxAttempts: 3, SendRetryBase: 10 * time.Millisecond, SendPollInterval: 50 * time.Millisecond,
	}
	// Warnings and errors show in the output of a failing test run.
	runOpts := []svcrun.Option{svcrun.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	if opts.RealContacts {
		env.ContactsURL = startContacts(t, identityURL, opts.Brokers)
		cfg.ContactsURL, env.Contacts = env.ContactsURL, nil
	} else {
		runOpts = append(runOpts, optin.WithContacts(env.Contacts))
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	env.Config = cfg
	env.BaseURL = "http://" + run(t, "optin-svc", func(ctx context.Context, ready func(string)) error {
		return optin.Run(ctx, cfg, append(runOpts, svcrun.WithReady(func(a svcrun.Addrs) {
			env.InternalAddr = a.Internal
			ready(a.HTTP)
		}))...)
	})
	return env
}

// startIdentity runs identity-svc on its own fresh database.
func startIdentity(t testing.TB, brokers []string) string {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "identity", idmigrations.Sets()...)
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	cfg := identity.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", DatabaseURL: dsn, DBMaxConns: 4,
			KafkaBrokers: brokers},
		SigningKey: seed, AdminToken: AdminToken, ServiceSecret: ServiceSecret,
		InternalTokenTTL: time.Minute,
	}
	return "http://" + run(t, "identity-svc", func(ctx context.Context, ready func(string)) error {
		return identity.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready(a.HTTP) }))
	})
}

// startContacts runs contacts-svc on its own fresh database, verifying
// tokens with identity-svc's keys.
func startContacts(t testing.TB, identityURL string, brokers []string) string {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "contacts", contactsmigrations.Sets()...)
	cfg := contacts.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", DatabaseURL: dsn, DBMaxConns: 4,
			KafkaBrokers: brokers, IdentityURL: identityURL},
		DefaultRegion: "US",
	}
	return "http://" + run(t, "contacts-svc", func(ctx context.Context, ready func(string)) error {
		return contacts.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready(a.HTTP) }))
	})
}

// run starts a service's Run until the test ends and returns its HTTP address.
func run(t testing.TB, name string, start func(ctx context.Context, ready func(string)) error) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- start(ctx, func(addr string) { ready <- addr }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s Run: %v", name, err)
		}
	})
	select {
	case addr := <-ready:
		return addr
	case err := <-done:
		t.Fatalf("%s stopped before it was ready: %v", name, err)
	}
	return ""
}
