package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/inbox"
	"github.com/paylane/paylane/libs/tenancy"
)

// Consumer is the name webhook-svc claims consumed events under (inbox).
const Consumer = "webhook-svc"

// Event is a consumed event ready to deliver: its id and type, the body every
// delivery sends, when it happened, and the subscription patterns that
// match it (webhook.PatternsFor).
type Event struct {
	ID        string
	TenantID  string
	Type      string
	Body      []byte
	CreatedAt time.Time
	Patterns  []string
}

// ingestSQL stores, for one tenant ($1), the events that have deliveries
// (arrays $2-$5), the deliveries (arrays $7-$10: id, endpoint, event, event
// type) and their queue entries, all due at $6. A delivery that exists
// already (one per endpoint and event) is neither made nor queued again. It
// affects as many rows as it queued.
const ingestSQL = `WITH ev AS (
		INSERT INTO events (tenant_id, id, type, body, created_at)
		SELECT $1, e.id, e.type, e.body, e.created_at
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS e(id, type, body, created_at)
		ON CONFLICT DO NOTHING),
	d AS (
		INSERT INTO deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
		SELECT $1, x.id, x.endpoint_id, x.event_id, x.event_type, 'pending', $6, $6, $6
		  FROM unnest($7::text[], $8::text[], $9::text[], $10::text[]) AS x(id, endpoint_id, event_id, event_type)
		ON CONFLICT ON CONSTRAINT deliveries_once DO NOTHING
		RETURNING id)
	INSERT INTO delivery_queue (delivery_id, tenant_id, due_at) SELECT id, $1, $6 FROM d`

var errOtherTenant = errors.New("store: an event of another tenant in a tenant's ingest")

// Ingest turns events of tenantID into deliveries in one transaction scoped
// to the tenant: it reads the tenant's active endpoints, claims the ids of
// the events some endpoint subscribes to in one statement (inbox.ClaimAll;
// redelivered events are left out), and in one more statement stores every
// claimed event (the body once), one delivery per subscribed endpoint and
// their queue entries, due at now. The claims commit with the deliveries, so
// a crash loses nothing and a redelivery adds nothing. Events no endpoint
// subscribes to are neither claimed nor stored: a tenant without endpoints
// costs one read, no write. It returns how many deliveries it queued. newID
// makes delivery ids.
func (s *Store) Ingest(ctx context.Context, tenantID string, evs []Event, now time.Time, newID func() string) (int, error) {
	for _, ev := range evs {
		if ev.TenantID != tenantID {
			return 0, errOtherTenant
		}
	}
	var n int
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		eps, err := liveEndpoints(ctx, tx)
		if err != nil || len(eps) == 0 {
			return err
		}
		wanted := subscribed(evs, eps)
		if len(wanted) == 0 {
			return nil
		}
		claimed, err := inbox.ClaimAll(ctx, tx, Consumer, wanted)
		if err != nil || len(claimed) == 0 {
			return err
		}
		p := plan(evs, claimed, eps, newID)
		if len(p.deliveryIDs) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, ingestSQL, tenantID, p.eventIDs, p.types, p.bodies, p.createdAt, now,
			p.deliveryIDs, p.endpointIDs, p.deliveryEvents, p.deliveryTypes)
		if err != nil {
			return fmt.Errorf("storing deliveries: %w", err)
		}
		n = int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("ingesting %d events of tenant %s: %w", len(evs), tenantID, err)
	}
	return n, nil
}

// subscriber is an active endpoint and what it subscribes to.
type subscriber struct {
	id       string
	patterns []string
}

func liveEndpoints(ctx context.Context, tx pgx.Tx) ([]subscriber, error) {
	rows, err := tx.Query(ctx, `SELECT id, subscribed_events FROM endpoints
		WHERE is_active AND deleted_at IS NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading active endpoints: %w", err)
	}
	eps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (subscriber, error) {
		var s subscriber
		err := row.Scan(&s.id, &s.patterns)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading active endpoints: %w", err)
	}
	return eps, nil
}

// subscribed returns the ids of the events of evs that an endpoint of eps
// subscribes to, in batch order.
func subscribed(evs []Event, eps []subscriber) []string {
	var ids []string
	for _, ev := range evs {
		if slices.ContainsFunc(eps, func(ep subscriber) bool { return ep.wants(ev) }) {
			ids = append(ids, ev.ID)
		}
	}
	return ids
}

// wants reports whether s subscribes to a pattern that matches ev.
func (s subscriber) wants(ev Event) bool {
	return slices.ContainsFunc(s.patterns, func(p string) bool { return slices.Contains(ev.Patterns, p) })
}

// ingestPlan is the arrays of ingestSQL.
type ingestPlan struct {
	eventIDs, types, bodies                                 []string
	createdAt                                               []time.Time
	deliveryIDs, endpointIDs, deliveryEvents, deliveryTypes []string
}

// plan matches each claimed event (once, in batch order) with the endpoints
// subscribed to any of its patterns.
func plan(evs []Event, claimed []string, eps []subscriber, newID func() string) ingestPlan {
	var p ingestPlan
	open := make(map[string]bool, len(claimed))
	for _, id := range claimed {
		open[id] = true
	}
	for _, ev := range evs {
		if !open[ev.ID] {
			continue
		}
		delete(open, ev.ID) // a repeated id is planned once
		matched := false
		for _, ep := range eps {
			if !ep.wants(ev) {
				continue
			}
			matched = true
			p.deliveryIDs = append(p.deliveryIDs, newID())
			p.endpointIDs = append(p.endpointIDs, ep.id)
			p.deliveryEvents = append(p.deliveryEvents, ev.ID)
			p.deliveryTypes = append(p.deliveryTypes, ev.Type)
		}
		if matched {
			p.eventIDs = append(p.eventIDs, ev.ID)
			p.types = append(p.types, ev.Type)
			p.bodies = append(p.bodies, string(ev.Body))
			p.createdAt = append(p.createdAt, ev.CreatedAt)
		}
	}
	return p
}
