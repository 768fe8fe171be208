// Package outbox publishes events reliably: a service writes each event to its
// outbox table in the same transaction as the change it reports (Add), and a
// Relay publishes committed rows to Kafka and marks them published. An event is
// published at least once and only if its transaction committed.
package outbox

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations returns the migration set of the outbox table (version table
// goose_outbox). Pass it to pgdb.Migrate after the service's own set.
func Migrations() pgdb.MigrationSet {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(fmt.Errorf("outbox: embedded migrations: %w", err)) // the embed pattern guarantees the directory
	}
	return pgdb.MigrationSet{Name: "outbox", FS: sub}
}

// Add records env for publication on topic (events.TopicFor(env.Type) when
// topic is empty), keyed by the tenant id, as part of tx. It costs one INSERT,
// deferred to the next statement or the commit in a tenancy.Pipelined
// transaction (its error then comes from there). The trace context of ctx
// travels with the event (the Kafka message's traceparent header). The relay of the process
// learns of the event from Relay.Wake after the commit (tenancy.OnCommit), or
// finds it within its PollInterval.
func Add(ctx context.Context, tx pgx.Tx, topic string, env events.Envelope) error {
	if topic == "" {
		topic = events.TopicFor(env.Type)
	}
	if topic == "" {
		return fmt.Errorf("outbox: no topic for event type %q", env.Type)
	}
	if env.ID == "" {
		return errors.New("outbox: event without id (use events.New)")
	}
	payload, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("outbox: encoding %s event: %w", env.Type, err)
	}
	err = tenancy.Defer(ctx, tx,
		"INSERT INTO outbox (event_id, topic, key, tenant_id, payload, traceparent) VALUES ($1, $2, $3, $3, $4, $5)",
		env.ID, topic, env.TenantID, string(payload), obs.TraceParent(ctx))
	if err != nil {
		return fmt.Errorf("outbox: adding %s event: %w", env.Type, err)
	}
	return nil
}
