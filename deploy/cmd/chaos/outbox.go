package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// outboxDatabases are the databases with an outbox (events leave through
// it; a published row is deleted).
var outboxDatabases = []string{"identity", "contacts", "optin", "transactions", "batch"}

// outboxRows counts the rows waiting in each outbox, as the superuser.
func (e *env) outboxRows(ctx context.Context) (total int, each string) {
	var parts []string
	for _, db := range outboxDatabases {
		n, err := func() (int, error) {
			conn, err := pgx.Connect(ctx, e.info.Postgres.SuperuserDSN(db))
			if err != nil {
				return 0, err
			}
			defer conn.Close(ctx)
			var n int
			err = conn.QueryRow(ctx, "SELECT count(*) FROM outbox").Scan(&n)
			return n, err
		}()
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s ?", db))
			continue
		}
		total += n
		parts = append(parts, fmt.Sprintf("%s %d", db, n))
	}
	return total, strings.Join(parts, ", ")
}
