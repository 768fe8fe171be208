package pgcluster_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/pgcluster"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func query(t *testing.T, ctx context.Context, dsn, sql string) (string, error) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var s string
	err = conn.QueryRow(ctx, sql).Scan(&s)
	return s, err
}

func exec(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func TestEphemeralClusterAndServiceDB(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := startEphemeral(t, ctx)

	if got, err := query(t, ctx, c.SuperuserDSN("postgres"), "SHOW fsync"); err != nil || got != "off" {
		t.Fatalf("fsync = %q, %v; want off", got, err)
	}
	if _, err := os.Stat(filepath.Join(c.SocketDir, ".s.PGSQL."+strconv.Itoa(c.Port))); err != nil {
		t.Fatalf("unix socket: %v", err)
	}
	ownerDSN, appDSN, err := pgcluster.ServiceDB(ctx, c, "billing")
	if err != nil {
		t.Fatal(err)
	}
	// Idempotent: a second call succeeds and returns the same DSNs.
	ownerDSN2, appDSN2, err := pgcluster.ServiceDB(ctx, c, "billing")
	if err != nil || ownerDSN2 != ownerDSN || appDSN2 != appDSN {
		t.Fatalf("second ServiceDB = %q, %q, %v", ownerDSN2, appDSN2, err)
	}
	got, err := query(t, ctx, ownerDSN, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()")
	if err != nil || got != "billing_owner" {
		t.Fatalf("database owner = %q, %v", got, err)
	}
	if got, err := query(t, ctx, appDSN, "SELECT current_user"); err != nil || got != "billing_app" {
		t.Fatalf("app user = %q, %v", got, err)
	}
	// The app role may not create tables; the owner may.
	if err := exec(ctx, appDSN, "CREATE TABLE t (id int)"); !hasCode(err, "42501") {
		t.Fatalf("app CREATE TABLE: err = %v, want insufficient_privilege", err)
	}

	dir := filepath.Dir(c.Dir)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("temp dir %s still there: %v", dir, err)
	}
}

func TestServiceDBRejectsBadNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "Billing", "1x", "a b", "x;drop"} {
		if _, _, err := pgcluster.ServiceDB(context.Background(), &pgcluster.Cluster{}, name); err == nil {
			t.Errorf("ServiceDB(%q) succeeded", name)
		}
	}
}

func TestPersistentClusterKeepsDataAndPasswords(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	root := openTempDir(t)
	dir := filepath.Join(root, "state", "pg")
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	if _, err := os.Stat(pgcluster.PasswordFile(dir)); err != nil {
		t.Fatalf("password file: %v", err)
	}
	noPassword := c.DSN(pgcluster.Superuser, "", "postgres")
	if _, err := query(t, ctx, noPassword, "SELECT 'x'"); err == nil {
		t.Fatal("superuser connected without a password")
	}
	_, appDSN, err := pgcluster.ServiceDB(ctx, c, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(ctx, c.SuperuserDSN("ledger"), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	port := c.Port
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	c2, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c2.Stop() })
	if got, err := query(t, ctx, appDSN, "SELECT current_user"); err != nil || got != "ledger_app" {
		t.Fatalf("app DSN after restart: %q, %v", got, err)
	}
	if got, err := query(t, ctx, c2.SuperuserDSN("ledger"), "SELECT v FROM kept"); err != nil || got != "still here" {
		t.Fatalf("data after restart: %q, %v", got, err)
	}
}

func TestStartRefusesNonEmptyForeignDir(t *testing.T) {
	t.Parallel()
	root := openTempDir(t)
	dir := filepath.Join(root, "pg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pgcluster.Start(ctxT(t), pgcluster.Options{Dir: dir, Ephemeral: true})
	if err == nil || !strings.Contains(err.Error(), "neither empty nor a Postgres data directory") {
		t.Fatalf("err = %v", err)
	}
}

func hasCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// openTempDir returns a directory the postgres OS user can search: t.TempDir's
// parent is closed to other users.
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRestartEndsSessionsAndServesOnTheSamePort(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	c := startEphemeral(t, ctx)
	dsn := c.SuperuserDSN("postgres")
	if err := exec(ctx, dsn, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	before, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close(ctx)
	port, exited := c.Port, c.Exited()
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	default:
		t.Error("the first server process has not exited")
	}
	if c.Port != port {
		t.Errorf("port %d after Restart, want %d", c.Port, port)
	}
	var one int
	if err := before.QueryRow(ctx, "SELECT 1").Scan(&one); err == nil {
		t.Error("a session of the first server still answers after Restart")
	}
	if got, err := query(t, ctx, dsn, "SELECT id::text FROM kept"); err != nil || got != "7" {
		t.Fatalf("after Restart: %q, %v; want the row written before", got, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Stop after Restart left the server running")
	}
}

// startEphemeral starts an ephemeral cluster that the test's cleanup stops.
func startEphemeral(t *testing.T, ctx context.Context) *pgcluster.Cluster {
	t.Helper()
	c, err := pgcluster.Start(ctx, pgcluster.Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}
