// Package testenv gives optin-svc's tests real infrastructure: optin-svc
// running in-process on port 0 with a fresh migrated database
// (libs/testkit), an optional in-process Kafka broker, the fakes of its
// peers beside their clients (identity-svc/client/clienttest, which mints
// the tenants and tokens through the admin API as identity-svc does and
// publishes tenant.updated on the brokers; transactions-svc/client/clienttest),
// a stand-in for contacts-svc's phone records (Directory), and readers of
// the events optin-svc publishes. Tests that need the real contacts-svc
// beside optin-svc live in deploy/devstack's end-to-end suite.
package testenv

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	idclient "github.com/paylane/paylane/identity-svc/client"
	identitytest "github.com/paylane/paylane/identity-svc/client/clienttest"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/migrations"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// Secrets of the services started here.
const (
	AdminToken    = identitytest.AdminToken
	ServiceSecret = identitytest.ServiceSecret
	SMSAuthToken  = "test-sms-auth-token-0123456789"
	PublicBaseURL = "https://pay.example.test"
	DefaultFrom   = "+15005550006"
)

// Options adjust the optin-svc a test starts.
type Options struct {
	// Brokers runs the relay, the consumer and the dispatcher against them.
	Brokers []string
	// Configure changes the configuration before Run.
	Configure func(*optin.Config)
	// ListCap, when not zero, is the cap of exact list totals (the seam
	// of listtotal.DefaultCap).
	ListCap listtotal.Cap
}

// Env is optin-svc running for one test, with its peers' fakes.
type Env struct {
	// IdentityURL is the identity-svc fake's.
	IdentityURL string
	// IdentityFake is the identity-svc fake.
	IdentityFake *identitytest.Identity
	// BaseURL is optin-svc's HTTP listener.
	BaseURL string
	// InternalAddr serves optin-svc's probes and metrics.
	InternalAddr string
	Admin        *idclient.Admin
	Identity     *idclient.Client
	// Contacts is the contacts-svc stand-in optin-svc resolves phones with.
	Contacts *Directory
	// Transactions stands in for transactions-svc: the notifications
	// optin-svc reads for notification.requested events.
	Transactions *transactionstest.Fake
	// Pool connects to optin-svc's database as the app role; Owner as the owner.
	Pool, Owner *pgxpool.Pool
	Config      optin.Config

	brokers []string
}

// Start runs optin-svc beside an identity-svc fake until the test ends.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	return startOptin(t, startIdentity(t, opts.Brokers), opts)
}

// StartAnother runs a second optin-svc, on a fresh database, beside the
// identity-svc of e (to configure it with tenants e created).
func (e *Env) StartAnother(t testing.TB, opts Options) *Env {
	t.Helper()
	return startOptin(t, e.IdentityFake, opts)
}

// startOptin runs optin-svc against the identity-svc fake id.
func startOptin(t testing.TB, id *identitytest.Identity, opts Options) *Env {
	t.Helper()
	env := &Env{Contacts: NewDirectory(), IdentityURL: id.URL, IdentityFake: id, brokers: opts.Brokers,
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
	runOpts := []svcrun.Option{svcrun.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
		optin.WithContacts(env.Contacts)}
	if opts.ListCap != 0 {
		runOpts = append(runOpts, svcrun.WithSeam(opts.ListCap))
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

// startIdentity starts the identity-svc fake; with brokers, every tenant
// change is published as identity-svc's tenant.updated.
func startIdentity(t testing.TB, brokers []string) *identitytest.Identity {
	t.Helper()
	id := identitytest.New(t)
	if len(brokers) > 0 {
		// The callback runs on the fake's goroutine: report, never FailNow.
		id.OnTenantUpdated(func(tn idclient.Tenant) {
			env, err := events.New(events.TypeTenantUpdated, tn.ID, "", tn)
			if err == nil {
				err = publish(brokers, env)
			}
			if err != nil {
				t.Errorf("publishing tenant.updated: %v", err)
			}
		})
	}
	return id
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
