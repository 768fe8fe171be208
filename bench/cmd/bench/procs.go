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
)

// servicePackages are the binaries ownProcesses builds, in start order.
func servicePackages() []string {
	return []string{
		"github.com/paylane/paylane/identity-svc/cmd/identity-svc",
		"github.com/paylane/paylane/contacts-svc/cmd/contacts-svc",
		"github.com/paylane/paylane/gateway/cmd/gateway",
	}
}

// launchServices builds the binaries and starts them against the
// devstack's Postgres and broker, each with a login role of its own that is
// a member of the service's app role (same privileges, row-level security
// applies).
func (b *bench) launchServices(ctx context.Context) (*services, error) {
	bin := filepath.Join(b.root, "bin")
	repo, err := devstack.DefaultRoot()
	if err != nil {
		return nil, err
	}
	b.logf("building %d service binaries", len(servicePackages()))
	if err := footprint.Build(ctx, filepath.Dir(repo), bin, servicePackages()...); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(b.root, "processes.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the processes' log: %w", err)
	}
	s := &services{}
	addrs := map[string]string{}
	for _, name := range []string{"identity", "contacts", "gateway"} {
		env, internal, err := b.processEnv(ctx, name, addrs)
		if err != nil {
			s.stop(b)
			return nil, err
		}
		binName := name + "-svc"
		if name == "gateway" {
			binName = name
		}
		p, err := footprint.Launch(ctx, binName, filepath.Join(bin, binName), env, internal, log)
		if err != nil {
			s.stop(b)
			return nil, err
		}
		s.list = append(s.list, p)
	}
	_, port, _ := net.SplitHostPort(addrs["gateway"])
	s.gatewayURL = "https://localhost:" + port
	b.logf("services running as own processes, gateway %s", s.gatewayURL)
	return s, nil
}

// processEnv returns the environment of service name, records its HTTP
// address in addrs and returns its internal listener.
func (b *bench) processEnv(ctx context.Context, name string, addrs map[string]string) ([]string, string, error) {
	var free [3]string
	for i := range free {
		a, err := footprint.FreeAddr()
		if err != nil {
			return nil, "", err
		}
		free[i] = a
	}
	brokers := "KAFKA_BROKERS=" + strings.Join(b.env.Brokers, ",")
	if name == "gateway" {
		addrs[name] = free[0]
		return []string{
			"LISTEN_ADDR=" + free[0], "ADMIN_ADDR=" + free[1], "INTERNAL_ADDR=" + free[2],
			"TLS_CERT_FILE=" + b.env.CertFile, "TLS_KEY_FILE=" + b.env.KeyFile,
			"IDENTITY_URL=http://" + addrs["identity"], "ADMIN_TOKEN=" + b.env.AdminToken, brokers,
			"ROUTES=/api/v1/contacts=http://" + addrs["contacts"],
			"ADMIN_ROUTES=/admin/v1/tenants=http://" + addrs["identity"],
		}, free[2], nil
	}
	dsn, err := b.loginRole(ctx, "bench_"+name, name)
	if err != nil {
		return nil, "", err
	}
	addrs[name] = free[0]
	env := []string{
		"HTTP_ADDR=" + free[0], "INTERNAL_ADDR=" + free[2], "DATABASE_URL=" + dsn, brokers,
		"DB_MAX_CONNS=" + strconv.Itoa(b.cfg.dbConns),
	}
	if name == "identity" {
		env = append(env, "SIGNING_KEY="+base64.StdEncoding.EncodeToString(b.env.Secrets.SigningKey),
			"ADMIN_TOKEN="+b.env.AdminToken)
	} else {
		env = append(env, "IDENTITY_URL=http://"+addrs["identity"])
	}
	return env, free[2], nil
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
