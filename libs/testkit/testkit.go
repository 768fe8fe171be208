// Package testkit gives tests real infrastructure: one throwaway Postgres
// cluster per test binary with a fresh database per test, cloned from a
// migrated template, and in-process Kafka-protocol brokers (kfake).
//
// A package that uses PG needs
//
//	func TestMain(m *testing.M) { testkit.Main(m) }
package testkit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/pgcluster"
)

// binary is the state of this test binary. It is the one package-level variable
// in the libraries: PG(t) receives nothing but t, so the cluster shared by all
// tests of the binary must be reachable from here; Main stops it.
var binary = &binaryState{}

type binaryState struct {
	mu      sync.Mutex
	inMain  bool
	pg      *Postgres
	pgErr   error
	stopped bool
}

// Main runs the tests of a package and then stops the cluster PG started. Use it
// as func TestMain(m *testing.M) { testkit.Main(m) }.
func Main(m *testing.M) {
	binary.mu.Lock()
	binary.inMain = true
	binary.mu.Unlock()
	code := m.Run()
	if err := binary.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testkit: stopping postgres:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func (b *binaryState) stop() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.pg == nil {
		return nil
	}
	b.pg.admin.Close()
	return b.pg.cluster.Stop()
}

// PG returns the cluster of this test binary, started on first use in a
// temporary directory owned by the postgres OS user, with fsync off.
func PG(t testing.TB) *Postgres {
	t.Helper()
	b := binary
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.inMain:
		t.Fatal("testkit.PG needs the package's TestMain to be: func TestMain(m *testing.M) { testkit.Main(m) }")
	case b.stopped:
		t.Fatal("testkit.PG called after the tests finished")
	case b.pg == nil && b.pgErr == nil:
		b.pg, b.pgErr = startPostgres()
	}
	if b.pgErr != nil {
		t.Fatalf("testkit: starting postgres: %v", b.pgErr)
	}
	return b.pg
}

func startPostgres() (*Postgres, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgcluster.Start(ctx, pgcluster.Options{Ephemeral: true})
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(c.SuperuserDSN("postgres"))
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("superuser dsn: %w", err)
	}
	cfg.MaxConns = 4
	admin, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("superuser pool: %w", err)
	}
	return &Postgres{
		cluster:   c,
		admin:     admin,
		templates: make(map[string]*template),
		owners:    make(map[string]string),
	}, nil
}
