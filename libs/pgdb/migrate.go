package pgdb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// MigrationSet is one sequence of goose SQL migrations: the *.sql files at the
// root of FS, recorded in the version table goose_<Name>. A service has its own
// set and adds shared ones (outbox.Migrations, inbox.Migrations).
type MigrationSet struct {
	Name string
	FS   fs.FS
}

// migrateLockKey is the pg_advisory_lock key (an arbitrary constant) that
// serialises Migrate across replicas starting at once.
const migrateLockKey int64 = 0x7061796c616e65 // "paylane"

var setName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,50}$`)

// Migrate applies every pending migration of sets, in order, as the owner role
// of ownerDSN, then grants appRole SELECT, INSERT, UPDATE and DELETE on all
// tables and USAGE and SELECT on all sequences of schema public, also by default
// for objects the owner creates later (the goose version tables excepted), and
// EXECUTE on all functions of schema public (a migration that revokes a
// function from PUBLIC leaves it to the app role). It
// holds a session advisory lock meanwhile, so replicas may run it concurrently:
// one migrates, the others wait and then find nothing pending. An empty appRole
// skips the grants.
func Migrate(ctx context.Context, ownerDSN string, appRole string, sets ...MigrationSet) error {
	cfg, err := pgx.ParseConfig(ownerDSN)
	if err != nil {
		return fmt.Errorf("parsing owner dsn: %w", err)
	}
	lockConn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return fmt.Errorf("connecting for migrations: %w", err)
	}
	defer lockConn.Close(context.Background())
	if _, err := lockConn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	// Closing lockConn ends the session and so releases the lock, also on error.

	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, set := range sets {
		if err := migrateSet(ctx, db, set); err != nil {
			return err
		}
	}
	if appRole == "" {
		return nil
	}
	if _, err := lockConn.Exec(ctx, grantSQL(appRole, sets)); err != nil {
		return fmt.Errorf("granting %s: %w", appRole, err)
	}
	return nil
}

func migrateSet(ctx context.Context, db *sql.DB, set MigrationSet) error {
	if !setName.MatchString(set.Name) {
		return fmt.Errorf("migration set name %q must match %s", set.Name, setName)
	}
	store, err := database.NewStore(database.DialectPostgres, "goose_"+set.Name)
	if err != nil {
		return fmt.Errorf("migration set %s: %w", set.Name, err)
	}
	p, err := goose.NewProvider(goose.DialectCustom, db, set.FS,
		goose.WithStore(store),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(slog.New(slog.DiscardHandler)),
	)
	if err != nil {
		return fmt.Errorf("migration set %s: %w", set.Name, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrating %s: %w", set.Name, err)
	}
	return nil
}

// grantSQL gives role DML on everything in schema public but the goose version
// tables, now and for objects created later by the migrating role, and EXECUTE
// on the functions there now.
func grantSQL(role string, sets []MigrationSet) string {
	r := pgx.Identifier{role}.Sanitize()
	stmts := []string{
		"GRANT USAGE ON SCHEMA public TO " + r,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + r,
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + r,
		"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO " + r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + r,
	}
	for _, set := range sets {
		table := pgx.Identifier{"goose_" + set.Name}.Sanitize()
		stmts = append(stmts, "REVOKE ALL ON "+table+" FROM "+r)
		stmts = append(stmts, "REVOKE ALL ON SEQUENCE "+pgx.Identifier{"goose_" + set.Name + "_id_seq"}.Sanitize()+" FROM "+r)
	}
	return strings.Join(stmts, ";\n")
}
