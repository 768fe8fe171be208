package pgcluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// serviceName is what ServiceDB accepts: it becomes a database and two role names.
var serviceName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,40}$`)

// connect opens a superuser session. Statements that fail are kept out of the
// server log, since role statements carry passwords.
func (c *Cluster) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(c.SuperuserDSN(db))
	if err != nil {
		return nil, fmt.Errorf("superuser dsn: %w", err)
	}
	cfg.RuntimeParams["log_min_error_statement"] = "panic"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting as superuser: %w", err)
	}
	return conn, nil
}

// EnsureRole creates role name, or updates an existing one, with the given
// password (none when empty) and LOGIN when login is true.
func (c *Cluster) EnsureRole(ctx context.Context, name, password string, login bool) error {
	conn, err := c.connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	attrs := "NOLOGIN"
	if login {
		attrs = "LOGIN"
	}
	if password != "" {
		attrs += " PASSWORD " + quoteLiteral(password)
	} else {
		attrs += " PASSWORD NULL"
	}
	ident := pgx.Identifier{name}.Sanitize()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("looking up role %s: %w", name, err)
	}
	if !exists {
		_, err = conn.Exec(ctx, "CREATE ROLE "+ident+" "+attrs)
		if err == nil || !isCode(err, "42710", "23505") { // duplicate_object, unique_violation: a concurrent create
			return wrap(err, "creating role "+name)
		}
	}
	_, err = conn.Exec(ctx, "ALTER ROLE "+ident+" "+attrs)
	return wrap(err, "altering role "+name)
}

// EnsureDatabase creates database name owned by owner, or hands an existing one to owner.
func (c *Cluster) EnsureDatabase(ctx context.Context, name, owner string) error {
	conn, err := c.connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	db, role := pgx.Identifier{name}.Sanitize(), pgx.Identifier{owner}.Sanitize()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("looking up database %s: %w", name, err)
	}
	if !exists {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+db+" OWNER "+role)
		if err == nil || !isCode(err, "42P04", "23505") { // duplicate_database, unique_violation
			return wrap(err, "creating database "+name)
		}
	}
	_, err = conn.Exec(ctx, "ALTER DATABASE "+db+" OWNER TO "+role)
	return wrap(err, "altering database "+name)
}

// ServiceDB prepares the database of one service: role <name>_owner (login; owns
// database <name>, runs migrations), role <name>_app (login, owns nothing; gets
// DML grants from pgdb.Migrate) and database <name>, which only those two roles
// (and the superuser) may connect to. It returns their DSNs. Role passwords are
// derived from the cluster's superuser password (see RolePassword), so a
// persistent cluster hands out the same DSNs after a restart.
func ServiceDB(ctx context.Context, c *Cluster, name string) (ownerDSN, appDSN string, err error) {
	if !serviceName.MatchString(name) {
		return "", "", fmt.Errorf("service database name %q must match %s", name, serviceName)
	}
	owner, app := name+"_owner", name+"_app"
	for _, role := range []string{owner, app} {
		if err := c.EnsureRole(ctx, role, c.RolePassword(role), true); err != nil {
			return "", "", err
		}
	}
	if err := c.EnsureDatabase(ctx, name, owner); err != nil {
		return "", "", err
	}
	conn, err := c.connect(ctx, name)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(context.Background())
	db := pgx.Identifier{name}.Sanitize()
	sql := "REVOKE ALL ON DATABASE " + db + " FROM PUBLIC; " +
		"GRANT CONNECT, TEMPORARY ON DATABASE " + db + " TO " + pgx.Identifier{app}.Sanitize() + "; " +
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC"
	if _, err := conn.Exec(ctx, sql); err != nil {
		return "", "", fmt.Errorf("restricting database %s: %w", name, err)
	}
	return c.DSN(owner, c.RolePassword(owner), name), c.DSN(app, c.RolePassword(app), name), nil
}

// RolePassword is the password ServiceDB gives role: an HMAC of the role name
// keyed by the superuser password (or by a per-start secret under trust
// authentication).
func (c *Cluster) RolePassword(role string) string {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(role))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings is on).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func isCode(err error, codes ...string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	for _, c := range codes {
		if pgErr.Code == c {
			return true
		}
	}
	return false
}

func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
