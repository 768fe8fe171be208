// Package stack starts the devstack in this process for the benchmarks and
// describes it: the devstack's Info, the Postgres superuser's DSNs, the
// services' internal listeners (learnt from their start-up log lines) and
// how long the start took.
package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/deploy/devstack"
	"github.com/paylane/paylane/libs/pgcluster"
)

// Env is a running devstack.
type Env struct {
	devstack.Info
	// StartedIn is the time from devstack.Run to its Ready callback: Postgres
	// (initdb on a fresh root), migrations, every service and the demo tenant.
	StartedIn time.Duration
	// Secrets are the stack's deployment secrets (Root/secrets.json).
	Secrets devstack.Secrets
	// CertFile and KeyFile are the gateway's certificate, signed by CAFile.
	CertFile, KeyFile string
	// Internal maps a service's log name (identity-svc, contacts-svc,
	// gateway) to its internal listener (/readyz, /metrics, /debug/pprof).
	Internal map[string]string
	// PostmasterPID is the Postgres server's process; its children are the
	// backends.
	PostmasterPID int

	superuserPassword string
}

// SuperuserDSN is a DSN of the cluster's superuser for database db.
func (e *Env) SuperuserDSN(db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(pgcluster.Superuser, e.superuserPassword),
		Host:     "127.0.0.1:" + strconv.Itoa(e.PostgresPort),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// DSN is a DSN for user with password on database db.
func (e *Env) DSN(user, password, db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(user, password),
		Host:     "127.0.0.1:" + strconv.Itoa(e.PostgresPort),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Stack is a devstack running in this process.
type Stack struct {
	Env    *Env
	cancel context.CancelFunc
	done   chan error
}

// Start runs the devstack on root (created 0755 when missing) with every
// listener on 127.0.0.1:0, its progress to log and the services' JSON logs
// to serviceLog. It returns once the stack is ready.
func Start(ctx context.Context, root string, log, serviceLog io.Writer) (*Stack, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", root, err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, fmt.Errorf("chmod %s: %w", root, err)
	}
	tap := newTap(serviceLog)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Stack{cancel: cancel, done: make(chan error, 1)}
	ready := make(chan devstack.Info, 1)
	began := time.Now()
	go func() {
		s.done <- devstack.Run(runCtx, devstack.Options{
			Root: root, GatewayAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0",
			Log: log, ServiceLog: tap, Ready: func(i devstack.Info) { ready <- i },
		})
	}()
	select {
	case info := <-ready:
		env, err := describe(info, time.Since(began), tap.internal())
		if err != nil {
			_ = s.Stop()
			return nil, err
		}
		s.Env = env
		return s, nil
	case err := <-s.done:
		cancel()
		return nil, fmt.Errorf("devstack stopped while starting: %w", orStopped(err))
	case <-ctx.Done():
		_ = s.Stop()
		return nil, ctx.Err()
	}
}

func orStopped(err error) error {
	if err == nil {
		return errors.New("no error reported")
	}
	return err
}

// Stop stops the stack and waits for it.
func (s *Stack) Stop() error {
	s.cancel()
	return <-s.done
}

// describe completes the devstack's Info with what the benchmarks need.
func describe(info devstack.Info, took time.Duration, internal map[string]string) (*Env, error) {
	secrets, err := devstack.LoadOrCreateSecrets(filepath.Join(info.Root, "secrets.json"))
	if err != nil {
		return nil, err
	}
	pw, err := os.ReadFile(pgcluster.PasswordFile(filepath.Join(info.Root, "pg")))
	if err != nil {
		return nil, fmt.Errorf("reading the superuser password: %w", err)
	}
	pidFile, err := os.ReadFile(filepath.Join(info.Root, "pg", "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("reading the postmaster's pid: %w", err)
	}
	first, _, _ := strings.Cut(string(pidFile), "\n")
	pmPID, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return nil, fmt.Errorf("parsing the postmaster's pid: %w", err)
	}
	tlsDir := filepath.Join(info.Root, "tls")
	return &Env{
		Info: info, StartedIn: took, Secrets: secrets,
		CertFile: filepath.Join(tlsDir, "gateway.pem"), KeyFile: filepath.Join(tlsDir, "gateway-key.pem"),
		Internal: internal, PostmasterPID: pmPID, superuserPassword: strings.TrimSpace(string(pw)),
	}, nil
}

// Analyze runs ANALYZE in each database as the superuser, as autovacuum
// would within its naptime (a minute) of a bulk of new rows.
func (e *Env) Analyze(ctx context.Context, dbs ...string) error {
	for _, db := range dbs {
		conn, err := pgx.Connect(ctx, e.SuperuserDSN(db))
		if err != nil {
			return fmt.Errorf("connecting to %s: %w", db, err)
		}
		_, err = conn.Exec(ctx, "ANALYZE")
		conn.Close(ctx)
		if err != nil {
			return fmt.Errorf("analyzing %s: %w", db, err)
		}
	}
	return nil
}
