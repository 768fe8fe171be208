// Package migrations embeds the goose SQL migrations of dashboard-svc.
package migrations

import (
	"embed"

	"github.com/paylane/paylane/libs/pgdb"
)

// FS holds the *.sql goose migrations at its root.
//
//go:embed *.sql
var FS embed.FS

// Sets are the migration sets of dashboard-svc's database.
func Sets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{{Name: "dashboard", FS: FS}}
}
