// Package migrations embeds the goose SQL migrations of identity-svc.
package migrations

import "embed"

// FS holds the *.sql goose migrations at its root.
//
//go:embed *.sql
var FS embed.FS
