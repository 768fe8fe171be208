// Package inbox makes event consumers idempotent: a consumer claims each event
// id in the transaction that applies the event, and skips events it has
// already claimed.
package inbox

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
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

// ClaimAll is Claim for many events in one statement: it claims every id of
// eventIDs not claimed yet and returns those (sorted; apply these), leaving
// out the redeliveries and repeated ids. The ids are inserted in sorted
// order, so concurrent ClaimAll calls over overlapping sets wait for each
// other instead of deadlocking.
func ClaimAll(ctx context.Context, tx pgx.Tx, consumer string, eventIDs []string) ([]string, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO inbox (consumer, event_id)
		SELECT DISTINCT $1::text, id FROM unnest($2::text[]) AS id ORDER BY 2
		ON CONFLICT DO NOTHING
		RETURNING event_id`, consumer, eventIDs)
	if err != nil {
		return nil, fmt.Errorf("inbox: claiming %d events: %w", len(eventIDs), err)
	}
	claimed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("inbox: claiming %d events: %w", len(eventIDs), err)
	}
	slices.Sort(claimed)
	return claimed, nil
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

// PruneEvery runs Prune with olderThan every interval until ctx is done,
// logging failures. Consumers start it next to their listeners.
func PruneEvery(ctx context.Context, db Execer, olderThan, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := Prune(ctx, db, olderThan); err != nil && ctx.Err() == nil {
			log.Warn("pruning inbox", "err", err)
		}
	}
}
