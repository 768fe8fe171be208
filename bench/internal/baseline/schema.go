package baseline

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/ids"
)

// Database is the scratch database of the baseline's writes.
const Database = "bench"

// tableSQL creates a contacts-shaped table: the columns of contacts-svc's
// contacts with the phone inline, a primary key and nothing else.
const tableSQL = `CREATE TABLE %s (
	id            text        PRIMARY KEY,
	tenant_id     text        NOT NULL,
	external_id   text,
	first_name    text,
	last_name     text,
	phone         text        NOT NULL,
	email         text,
	custom_fields jsonb       NOT NULL DEFAULT '{}',
	created_at    timestamptz NOT NULL,
	updated_at    timestamptz NOT NULL
)`

// Prepare creates the bench database (through serverDSN, a superuser
// session on any database) when missing, and recreates its tables empty
// (through benchDSN).
func Prepare(ctx context.Context, serverDSN, benchDSN string) error {
	conn, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	var exists bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists)
	if err == nil && !exists {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+Database)
	}
	conn.Close(ctx)
	if err != nil {
		return fmt.Errorf("creating database %s: %w", Database, err)
	}
	conn, err = pgx.Connect(ctx, benchDSN)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", Database, err)
	}
	defer conn.Close(ctx)
	for _, table := range []string{"contacts", "copy_contacts"} {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
			return fmt.Errorf("dropping %s: %w", table, err)
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf(tableSQL, table)); err != nil {
			return fmt.Errorf("creating %s: %w", table, err)
		}
	}
	return nil
}

// Copy writes n contacts rows into bench.copy_contacts with one COPY (pgx
// CopyFrom) and returns how long the COPY took; phone gives row i's number.
func Copy(ctx context.Context, benchDSN, tenantID string, n int, phone func(i int) string) (time.Duration, error) {
	conn, err := pgx.Connect(ctx, benchDSN)
	if err != nil {
		return 0, fmt.Errorf("connecting to %s: %w", Database, err)
	}
	defer conn.Close(ctx)
	now := time.Now().UTC()
	rows := make([][]any, n)
	for i := range rows {
		idx := strconv.Itoa(i)
		rows[i] = []any{ids.NewAt(now), tenantID, "ext-" + idx, "Batch", "Row " + idx, phone(i),
			"row" + idx + "@example.com", now, now}
	}
	cols := []string{"id", "tenant_id", "external_id", "first_name", "last_name", "phone", "email", "created_at", "updated_at"}
	start := time.Now()
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"copy_contacts"}, cols, pgx.CopyFromRows(rows))
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("copying: %w", err)
	}
	if copied != int64(n) {
		return 0, fmt.Errorf("copied %d rows, want %d", copied, n)
	}
	return took, nil
}
