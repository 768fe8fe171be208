// Package migrations embeds the goose SQL migrations of transactions-svc.
package migrations

import (
	"embed"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
)

// FS holds the *.sql goose migrations at its root.
//
//go:embed *.sql
var FS embed.FS

// Sets are the migration sets of transactions-svc's database, in order: its
// own tables, the outbox, the inbox (message.* events consumed) and the
// idempotency keys.
func Sets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{
		{Name: "transactions", FS: FS},
		outbox.Migrations(),
		inbox.Migrations(),
		idempotency.Migrations(),
	}
}
