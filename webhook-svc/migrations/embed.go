// Package migrations embeds the goose SQL migrations of webhook-svc.
package migrations

import (
	"embed"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/pgdb"
)

// FS holds the *.sql goose migrations at its root.
//
//go:embed *.sql
var FS embed.FS

// Sets are the migration sets of webhook-svc's database, in order: its own
// tables, the idempotency keys and the inbox of consumed events.
func Sets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{
		{Name: "webhook", FS: FS},
		idempotency.Migrations(),
		inbox.Migrations(),
	}
}
