// Package pgdb opens pgx pools and runs a service's goose migrations.
package pgdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Open returns a pool for dsn with at most maxConns connections (pgx's default
// when maxConns <= 0) after a successful ping. pgx's statement cache stays on:
// each connection prepares a statement once and then only binds and executes it.
// JIT compilation is off for the pool's sessions (unless the dsn sets jit):
// the services run short statements, for which a generic plan costed high
// (a list's page over a large tenant) would spend 0.3-0.8 s compiling what
// runs in a millisecond (docs/benchmarks.md, "Data growth").
func Open(ctx context.Context, dsn string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parsing database dsn: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening database pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pinging database: %w", err)
	}
	return pool, nil
}

// AppRole returns the user name in dsn (URL or key=value form), or "" when dsn
// does not parse.
func AppRole(dsn string) string {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return cfg.User
}

// IsUniqueViolation reports whether err is a unique violation (SQLSTATE 23505) of
// constraint, or of any constraint when constraint is empty.
func IsUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false
	}
	return constraint == "" || pgErr.ConstraintName == constraint
}
