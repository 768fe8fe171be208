// Package migrations embeds the goose SQL migrations of contacts-svc.
package migrations

import (
	"embed"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/pgdb"
)

// FS holds the *.sql goose migrations at its root.
//
//go:embed *.sql
var FS embed.FS

// Sets are the migration sets of contacts-svc's database, in order: its own
// tables, the outbox and the idempotency keys.
func Sets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{
		{Name: "contacts", FS: FS},
		outbox.Migrations(),
		idempotency.Migrations(),
	}
}
