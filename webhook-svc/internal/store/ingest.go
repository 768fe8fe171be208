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

// Ingest turns an event into deliveries, in one transaction scoped to the
// event's tenant: it claims the event id (inbox), finds the active endpoints
// subscribed to any of patterns, stores the event once and one delivery per
// endpoint, and queues them due now. It returns how many deliveries it
// created (0 for a redelivered event). newID makes delivery ids.
func (s *Store) Ingest(ctx context.Context, ev Event, patterns []string, now time.Time, newID func() string) (int, error) {
	var n int
	err := tenancy.Do(ctx, s.pool, ev.TenantID, func(tx pgx.Tx) error {
		first, err := inbox.Claim(ctx, tx, Consumer, ev.ID)
		if err != nil || !first {
			return err
		}
		endpoints, err := subscribed(ctx, tx, patterns)
		if err != nil || len(endpoints) == 0 {
			return err
		}
		deliveryIDs := make([]string, len(endpoints))
		for i := range deliveryIDs {
			deliveryIDs[i] = newID()
		}
		_, err = tx.Exec(ctx, `WITH ev AS (
				INSERT INTO events (tenant_id, id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT DO NOTHING),
			d AS (
				INSERT INTO deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
				SELECT $1, u.id, u.endpoint_id, $2, $3, 'pending', $6, $6, $6
				  FROM unnest($7::text[], $8::text[]) AS u(id, endpoint_id)
				ON CONFLICT ON CONSTRAINT deliveries_once DO NOTHING
				RETURNING id)
			INSERT INTO delivery_queue (delivery_id, tenant_id, due_at) SELECT id, $1, $6 FROM d`,
			ev.TenantID, ev.ID, ev.Type, string(ev.Body), ev.CreatedAt, now, deliveryIDs, endpoints)
		if err != nil {
			return fmt.Errorf("storing deliveries of event %s: %w", ev.ID, err)
		}
		n = len(endpoints)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("ingesting event %s: %w", ev.ID, err)
	}
	return n, nil
}

// subscribed returns the ids of the tenant's active endpoints subscribed to
// any of patterns.
func subscribed(ctx context.Context, tx pgx.Tx, patterns []string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM endpoints
		WHERE is_active AND deleted_at IS NULL AND subscribed_events && $1::text[] ORDER BY id`, patterns)
	if err != nil {
		return nil, fmt.Errorf("finding subscribed endpoints: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("finding subscribed endpoints: %w", err)
	}
	return ids, nil
}
