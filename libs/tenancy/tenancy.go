// Package tenancy opens tenant-scoped transactions. Every tenant table has
// row-level security (ENABLE + FORCE) with the policy
// tenant_id = current_setting('app.tenant_id', true), and services connect as a
// role that owns no table, so a statement outside Do, Read or Batch sees no rows.
package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Setting is the configuration parameter the row-level security policies read.
const Setting = "app.tenant_id"

// ErrTenantID reports an unusable tenant id (empty, or with control characters).
var ErrTenantID = errors.New("tenancy: invalid tenant id")

// Do runs fn in one transaction scoped to tenantID; it commits when fn returns
// nil and rolls back otherwise (also when fn panics).
//
// The scope costs no round trip: the transaction starts with the single simple
// query "BEGIN; SELECT set_config('app.tenant_id', '<id>', true)" (pgx's
// TxOptions.BeginQuery), so BEGIN and the scope travel in one message and one
// answer, exactly like a bare BEGIN. The setting is local to the transaction and
// so never leaks to the next user of the pooled connection.
func Do(ctx context.Context, pool *pgxpool.Pool, tenantID string, fn func(pgx.Tx) error) error {
	begin, err := beginQuery(tenantID, false)
	if err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{BeginQuery: begin}, fn)
}

// Read is Do with a READ ONLY transaction.
func Read(ctx context.Context, pool *pgxpool.Pool, tenantID string, fn func(pgx.Tx) error) error {
	begin, err := beginQuery(tenantID, true)
	if err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{BeginQuery: begin}, fn)
}

// beginQuery builds the statement that opens the scoped transaction. The tenant
// id is inlined as a literal because a simple query carries no parameters.
func beginQuery(tenantID string, readOnly bool) (string, error) {
	if err := validTenantID(tenantID); err != nil {
		return "", err
	}
	begin := "BEGIN"
	if readOnly {
		begin = "BEGIN READ ONLY"
	}
	return begin + "; SELECT set_config('" + Setting + "', " + quoteLiteral(tenantID) + ", true)", nil
}

// CheckTenantID returns ErrTenantID when id cannot scope a transaction
// (empty, longer than 128 bytes, or holding a control character): a
// consumer skips an event of such a tenant rather than retry it forever.
func CheckTenantID(id string) error { return validTenantID(id) }

func validTenantID(id string) error {
	if id == "" || len(id) > 128 {
		return ErrTenantID
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return ErrTenantID
		}
	}
	return nil
}

// quoteLiteral quotes s as an SQL string literal (standard_conforming_strings is
// on, so only the quote character needs doubling).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// PolicySQL returns the statements that put table under tenant row-level
// security: ENABLE and FORCE (the owner is subject too) and the policy
// tenant_isolation for reads and writes. Migrations spell this SQL out; the
// function documents it and lets tests apply it.
func PolicySQL(table string) string {
	t := pgx.Identifier{table}.Sanitize()
	cond := fmt.Sprintf("tenant_id = current_setting('%s', true)", Setting)
	return "ALTER TABLE " + t + " ENABLE ROW LEVEL SECURITY;\n" +
		"ALTER TABLE " + t + " FORCE ROW LEVEL SECURITY;\n" +
		"CREATE POLICY tenant_isolation ON " + t + " USING (" + cond + ") WITH CHECK (" + cond + ");\n"
}
