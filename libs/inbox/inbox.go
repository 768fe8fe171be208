// Package inbox makes event consumers idempotent: a consumer claims each event
// id in the transaction that applies the event, and skips events it has
// already claimed.
package inbox

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations returns the migration set of the inbox table (version table
// goose_inbox). Pass it to pgdb.Migrate after the service's own set.
func Migrations() pgdb.MigrationSet {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(fmt.Errorf("inbox: embedded migrations: %w", err)) // the embed pattern guarantees the directory
	}
	return pgdb.MigrationSet{Name: "inbox", FS: sub}
}

// Claim records that consumer handles eventID as part of tx and reports whether
// this is the first time (true: apply the event; false: a redelivery, skip
// it). The claim commits or rolls back with tx, so an event whose handling
// failed is claimed again on the next delivery. A concurrent claim of the same
// event waits for the first transaction and then returns false. The row keeps
// the transaction's tenant scope (app.tenant_id), when it has one.
func Claim(ctx context.Context, tx pgx.Tx, consumer, eventID string) (bool, error) {
	tag, err := tx.Exec(ctx,
		"INSERT INTO inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
		consumer, eventID)
	if err != nil {
		return false, fmt.Errorf("inbox: claiming event %s: %w", eventID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Execer runs a statement: a *pgxpool.Pool, *pgx.Conn or pgx.Tx.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Prune deletes claims older than olderThan and returns how many. Keep claims
// longer than the topics' retention: an event redelivered after its claim is
// gone would be applied again.
func Prune(ctx context.Context, db Execer, olderThan time.Duration) (int64, error) {
	tag, err := db.Exec(ctx, "DELETE FROM inbox WHERE received_at < now() - make_interval(secs => $1)", olderThan.Seconds())
	if err != nil {
		return 0, fmt.Errorf("inbox: pruning: %w", err)
	}
	return tag.RowsAffected(), nil
}
