package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/deploy/devstack"
	"github.com/paylane/paylane/deploy/supervisor"
)

// ownService is one service run as its own process: its binary, whether
// it has a database (named like the service, as in the devstack) and its
// service-specific environment.
type ownService struct {
	name, binary string
	database     bool
	env          func(b *bench, a ownAddrs) []string
}

// ownAddrs are the listeners of the own processes, chosen before any
// starts (contacts-svc and optin-svc name each other).
type ownAddrs struct {
	http, internal map[string]string
	gatewayAdmin   string
}

func (a ownAddrs) url(name string) string { return "http://" + a.http[name] }

// ownServices are the services ownRows runs, in start order (the
// gateway last), configured as the devstack configures them.
func ownServices() []ownService {
	return []ownService{
		{"identity", "identity-svc", true, func(b *bench, _ ownAddrs) []string {
			return []string{"SIGNING_KEY=" + base64.StdEncoding.EncodeToString(b.env.Secrets.SigningKey),
				"ADMIN_TOKEN=" + b.env.AdminToken, "SERVICE_SECRET=" + b.env.Secrets.ServiceSecret}
		}},
		{"contacts", "contacts-svc", true, func(_ *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"), "OPTIN_URL=" + a.url("optin")}
		}},
		{"optin", "optin-svc", true, func(b *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"), "CONTACTS_URL=" + a.url("contacts"),
				"TRANSACTIONS_URL=" + a.url("transactions"), "SERVICE_SECRET=" + b.env.Secrets.ServiceSecret,
				"ADMIN_TOKEN=" + b.env.AdminToken,
				"SMS_AUTH_TOKEN=" + b.env.Secrets.SMSAuthToken, "SMS_PROVIDER=sink", "SMS_DEFAULT_FROM=+15005550006",
				"PUBLIC_BASE_URL=" + publicURL(a)}
		}},
		{"transactions", "transactions-svc", true, func(b *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"), "CONTACTS_URL=" + a.url("contacts"),
				"LINK_KEY=" + base64.StdEncoding.EncodeToString(b.env.Secrets.LinkKey), "PUBLIC_BASE_URL=" + publicURL(a)}
		}},
		{"webhook", "webhook-svc", true, func(b *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"),
				"WEBHOOK_ENCRYPTION_KEY=" + base64.StdEncoding.EncodeToString(b.env.Secrets.WebhookEncryptionKey),
				"WEBHOOK_ALLOW_CIDRS=127.0.0.0/8", "WEBHOOK_EXTRA_CA_FILE=" + b.env.CAFile}
		}},
		{"batch", "batch-svc", true, func(b *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"), "CONTACTS_URL=" + a.url("contacts"),
				"TRANSACTIONS_URL=" + a.url("transactions"), "SERVICE_SECRET=" + b.env.Secrets.ServiceSecret,
				"PUBLIC_BASE_URL=" + publicURL(a)}
		}},
		{"dashboard", "dashboard-svc", true, func(b *bench, a ownAddrs) []string {
			return []string{"IDENTITY_URL=" + a.url("identity"), "CONTACTS_URL=" + a.url("contacts"),
				"TRANSACTIONS_URL=" + a.url("transactions"), "WEBHOOK_URL=" + a.url("webhook"),
				"OPTIN_URL=" + a.url("optin"), "BATCH_URL=" + a.url("batch"),
				"SERVICE_SECRET=" + b.env.Secrets.ServiceSecret}
		}},
		// No database: HTTP_ADDR is set here (launch sets it with the DSN).
		{"ai-gateway", "ai-gateway-svc", false, func(_ *bench, a ownAddrs) []string {
			return []string{"HTTP_ADDR=" + a.http["ai-gateway"], "IDENTITY_URL=" + a.url("identity"),
				"CONTACTS_URL=" + a.url("contacts"), "TRANSACTIONS_URL=" + a.url("transactions")}
		}},
		{"gateway", "gateway", false, func(b *bench, a ownAddrs) []string {
			return []string{"LISTEN_ADDR=" + a.http["gateway"], "ADMIN_ADDR=" + a.gatewayAdmin,
				"TLS_CERT_FILE=" + b.env.CertFile, "TLS_KEY_FILE=" + b.env.KeyFile,
				"IDENTITY_URL=" + a.url("identity"), "ADMIN_TOKEN=" + b.env.AdminToken,
				"ROUTES=/api/v1/contacts=" + a.url("contacts"), "ADMIN_ROUTES=/admin/v1/tenants=" + a.url("identity")}
		}},
	}
}

func publicURL(a ownAddrs) string {
	_, port, _ := net.SplitHostPort(a.http["gateway"])
	return "https://localhost:" + port
}

// launchServices builds the binaries and starts them against the
// devstack's Postgres and broker, each with a login role of its own that is
// a member of the service's app role (same privileges, row-level security
// applies).
func (b *bench) launchServices(ctx context.Context) (*services, error) {
	rows := ownServices()
	bin := filepath.Join(b.root, "bin")
	repo, err := devstack.DefaultRoot()
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, r := range rows {
		pkgs = append(pkgs, "github.com/paylane/paylane/"+r.binary+"/cmd/"+r.binary) // module dir = binary
	}
	b.logf("building %d service binaries", len(pkgs))
	if err := footprint.Build(ctx, filepath.Dir(repo), bin, pkgs...); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(b.root, "processes.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the processes' log: %w", err)
	}
	addrs, err := newOwnAddrs(rows)
	if err != nil {
		return nil, err
	}
	var specs []supervisor.Spec
	for _, r := range rows {
		sp, err := b.spec(ctx, r, addrs, filepath.Join(bin, r.binary), log)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
	}
	sup, err := supervisor.New(supervisor.Options{Log: log}, specs...)
	if err != nil {
		return nil, err
	}
	if err := sup.Start(ctx); err != nil {
		return nil, err
	}
	s := &services{gatewayURL: publicURL(addrs), sup: sup}
	for _, r := range rows {
		s.list = append(s.list, ownProc{Name: r.binary, Internal: addrs.internal[r.name], sup: sup})
	}
	b.logf("services running as own processes, gateway %s", s.gatewayURL)
	return s, nil
}

// newOwnAddrs picks a free HTTP and internal address for every service.
func newOwnAddrs(rows []ownService) (ownAddrs, error) {
	a := ownAddrs{http: map[string]string{}, internal: map[string]string{}}
	pick := func() string {
		addr, err := footprint.FreeAddr()
		if err != nil {
			return ""
		}
		return addr
	}
	for _, r := range rows {
		a.http[r.name], a.internal[r.name] = pick(), pick()
		if a.http[r.name] == "" || a.internal[r.name] == "" {
			return ownAddrs{}, fmt.Errorf("no free port for %s", r.name)
		}
	}
	if a.gatewayAdmin = pick(); a.gatewayAdmin == "" {
		return ownAddrs{}, fmt.Errorf("no free port for the gateway's admin listener")
	}
	return a, nil
}

// spec is one service's supervisor spec: the common and its own
// environment, and nothing else.
func (b *bench) spec(ctx context.Context, r ownService, a ownAddrs, bin string, log *os.File) (supervisor.Spec, error) {
	env := append(r.env(b, a), "INTERNAL_ADDR="+a.internal[r.name], "KAFKA_BROKERS="+strings.Join(b.env.Brokers, ","))
	if n := b.cfg.whatifGOMAXPROCS; n > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(n))
	}
	if r.database {
		dsn, err := b.loginRole(ctx, "bench_"+r.name, r.name)
		if err != nil {
			return supervisor.Spec{}, err
		}
		env = append(env, "HTTP_ADDR="+a.http[r.name], "DATABASE_URL="+dsn, "DB_MAX_CONNS="+strconv.Itoa(b.cfg.dbConns))
	}
	return supervisor.Spec{
		Name: r.binary, Path: bin, Env: env, Output: log,
		ReadyURL: "http://" + a.internal[r.name] + "/readyz",
	}, nil
}

// loginRole (re)creates the login role role, a member of <db>_app, and
// returns its DSN on database db.
func (b *bench) loginRole(ctx context.Context, role, db string) (string, error) {
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return "", fmt.Errorf("generating a password: %w", err)
	}
	password := hex.EncodeToString(secret)
	ident, app := pgx.Identifier{role}.Sanitize(), pgx.Identifier{db + "_app"}.Sanitize()
	conn, err := pgx.Connect(ctx, b.env.SuperuserDSN("postgres"))
	if err != nil {
		return "", fmt.Errorf("connecting as superuser: %w", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		"DROP ROLE IF EXISTS " + ident,
		"CREATE ROLE " + ident + " LOGIN PASSWORD '" + password + "' IN ROLE " + app,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return "", fmt.Errorf("creating role %s: %w", role, err)
		}
	}
	return b.env.DSN(role, password, db), nil
}
