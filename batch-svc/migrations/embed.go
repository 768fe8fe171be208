// Package migrations embeds the goose SQL migrations of batch-svc.
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

// Sets are the migration sets of batch-svc's database, in order: its own
// tables, the idempotency keys and the outbox.
func Sets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{
		{Name: "batch", FS: FS},
		idempotency.Migrations(),
		outbox.Migrations(),
	}
}
