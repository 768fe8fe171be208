package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/tenancy"
)

// Consumer is the name webhook-svc claims consumed events under (inbox).
const Consumer = "webhook-svc"

// Event is a consumed event ready to deliver: its id and type, the body every
// delivery sends, and when it happened.
type Event struct {
	ID        string
	TenantID  string
	Type      string
	Body      []byte
	CreatedAt time.Time
}

// idBatch is how many delivery ids Ingest makes before it knows how many
// endpoints match: enough for nearly every event, so one statement does it.
const idBatch = 8

// ingestSQL finds the active endpoints subscribed to any of the patterns
// ($7) and, when there are any, stores the event body once, one delivery per
// endpoint (ids from $8, by the endpoint's rank; at most as many as there are
// ids) and their queue entries, due now. It returns how many endpoints match.
const ingestSQL = `WITH eps AS (
		SELECT id, row_number() OVER (ORDER BY id) AS n FROM endpoints
		 WHERE is_active AND deleted_at IS NULL AND subscribed_events && $7::text[]),
	ev AS (
		INSERT INTO events (tenant_id, id, type, body, created_at)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM eps)
		ON CONFLICT DO NOTHING),
	d AS (
		INSERT INTO deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
		SELECT $1, ($8::text[])[eps.n], eps.id, $2, $3, 'pending', $6, $6, $6 FROM eps WHERE eps.n <= cardinality($8::text[])
		ON CONFLICT ON CONSTRAINT deliveries_once DO NOTHING
		RETURNING id),
	q AS (
		INSERT INTO delivery_queue (delivery_id, tenant_id, due_at) SELECT id, $1, $6 FROM d)
	SELECT count(*) FROM eps`

// Ingest turns an event into deliveries, in one transaction scoped to the
// event's tenant: it claims the event id (inbox) and, in one statement,
// finds the active endpoints subscribed to any of patterns, stores the event
// once and one delivery per endpoint, and queues them due now. When more
// endpoints match than it made ids for, it runs the statement again with
// enough ids (deliveries already made are kept: one per endpoint and event).
// It returns how many deliveries the event has (0 for a redelivered event).
// newID makes delivery ids.
func (s *Store) Ingest(ctx context.Context, ev Event, patterns []string, now time.Time, newID func() string) (int, error) {
	var n int
	err := tenancy.Do(ctx, s.pool, ev.TenantID, func(tx pgx.Tx) error {
		first, err := inbox.Claim(ctx, tx, Consumer, ev.ID)
		if err != nil || !first {
			return err
		}
		for made := idBatch; ; made = n {
			ids := make([]string, made)
			for i := range ids {
				ids[i] = newID()
			}
			err := tx.QueryRow(ctx, ingestSQL, ev.TenantID, ev.ID, ev.Type, string(ev.Body), ev.CreatedAt, now,
				patterns, ids).Scan(&n)
			if err != nil {
				return fmt.Errorf("storing deliveries of event %s: %w", ev.ID, err)
			}
			if n <= made {
				return nil
			}
		}
	})
	if err != nil {
		return 0, fmt.Errorf("ingesting event %s: %w", ev.ID, err)
	}
	return n, nil
}
