// Package store keeps tenants and tokens in Postgres. Tenants and token
// routes are routing tables read without a tenant scope; token rows are
// tenant-scoped (row-level security) and only ever touched inside a
// tenancy transaction. Changes that other services must learn about are
// written to the outbox in the same transaction.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/reqid"
)

// Store reads and writes identity-svc's database.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store on the app pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// publish writes an event of typ about tenantID to the outbox within tx; the
// request id comes from ctx.
func publish(ctx context.Context, tx pgx.Tx, typ, tenantID string, data any) error {
	env, err := events.New(typ, tenantID, reqid.From(ctx), data)
	if err != nil {
		return fmt.Errorf("building %s event: %w", typ, err)
	}
	if err := outbox.Add(ctx, tx, events.TopicIdentity, env); err != nil {
		return fmt.Errorf("writing %s event to the outbox: %w", typ, err)
	}
	return nil
}

// isForeignKeyViolation reports whether err is a violation of constraint.
func isForeignKeyViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503" && pgErr.ConstraintName == constraint
}
