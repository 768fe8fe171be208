package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/obs"
)

// AddMany records envs for publication as part of tx in one INSERT, each on
// events.TopicFor(its type) and keyed by its tenant id: what Add does for
// one event, for bulk writes that must not cost a statement per event. The
// events are published in the order given. An empty envs writes nothing.
func AddMany(ctx context.Context, tx pgx.Tx, envs []events.Envelope) error {
	if len(envs) == 0 {
		return nil
	}
	n := len(envs)
	eventIDs, topics, tenants, payloads := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, env := range envs {
		topic := events.TopicFor(env.Type)
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
		eventIDs[i], topics[i], tenants[i], payloads[i] = env.ID, topic, env.TenantID, string(payload)
	}
	// WITH ORDINALITY and ORDER BY keep the given order in the bigserial ids
	// the relay publishes by.
	_, err := tx.Exec(ctx, `INSERT INTO outbox (event_id, topic, key, tenant_id, payload, traceparent)
		SELECT u.event_id, u.topic, u.tenant_id, u.tenant_id, u.payload::jsonb, $5
		  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(event_id, topic, tenant_id, payload, n)
		 ORDER BY u.n`, eventIDs, topics, tenants, payloads, obs.TraceParent(ctx))
	if err != nil {
		return fmt.Errorf("outbox: adding %d events: %w", n, err)
	}
	return nil
}
