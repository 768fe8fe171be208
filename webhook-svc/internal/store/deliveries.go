package store

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// DeliveryFilter narrows the deliveries list; empty fields match all.
type DeliveryFilter struct {
	Status    string
	EventType string
}

// ListDeliveries returns a page of an endpoint's deliveries, newest first,
// each with its attempts, and how many match in all (listtotal: exact up to
// the store's ListCap, estimated above it). A page in the older half of an
// exact total is read from the oldest end (listtotal.Window).
func (t *Tx) ListDeliveries(ctx context.Context, endpointID string, f DeliveryFilter, limit, offset int) ([]webhook.Delivery, listtotal.Total, error) {
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, `SELECT 1`+deliveriesWhere, endpointID, f.Status, f.EventType)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting deliveries: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, deliveriesPageSQL(w.Order()), endpointID, f.Status, f.EventType, w.Limit, w.Offset)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing deliveries: %w", err)
	}
	defer rows.Close()
	var (
		out   []webhook.Delivery
		index = map[string]int{}
		ids   []string
	)
	for rows.Next() {
		var d webhook.Delivery
		if err := rows.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Status, &d.AttemptCount,
			&d.ResponseStatus, &d.LastError, &d.NextAttemptAt, &d.DeliveredAt, &d.CreatedAt); err != nil {
			return nil, listtotal.Total{}, fmt.Errorf("reading delivery: %w", err)
		}
		d.Attempts = []webhook.Attempt{}
		index[d.ID] = len(out)
		ids = append(ids, d.ID)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing deliveries: %w", err)
	}
	if len(ids) == 0 {
		return out, total, nil
	}
	if err := t.attachAttempts(ctx, out, index, ids); err != nil {
		return nil, listtotal.Total{}, err
	}
	return out, total, nil
}

// deliveriesWhere is the FROM and WHERE of ListDeliveries: an endpoint's
// ($1) deliveries, of a status ($2) and an event type ($3) when not empty.
const deliveriesWhere = ` FROM deliveries WHERE endpoint_id = $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR event_type = $3)`

// deliveriesPageSQL is the page statement of ListDeliveries: LIMIT $4
// deliveries after skipping OFFSET $5 in order (a listtotal.Window's: DESC
// from the newest through deliveries_listed, ASC from the oldest by a
// backward scan of it), newest first either way.
func deliveriesPageSQL(order string) string {
	page := `SELECT id, endpoint_id, event_id, event_type, status, attempt_count,
		response_status, last_error, next_attempt_at, delivered_at, created_at` + deliveriesWhere + `
		ORDER BY created_at ` + order + `, id ` + order + ` LIMIT $4 OFFSET $5`
	if order == "DESC" {
		return page
	}
	return `SELECT * FROM (` + page + `) page ORDER BY created_at DESC, id DESC`
}

func (t *Tx) attachAttempts(ctx context.Context, out []webhook.Delivery, index map[string]int, ids []string) error {
	rows, err := t.tx.Query(ctx, `SELECT delivery_id, number, succeeded, response_status, error, attempted_at, duration_ms
		FROM attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, number`, ids)
	if err != nil {
		return fmt.Errorf("listing attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id string
			a  webhook.Attempt
		)
		if err := rows.Scan(&id, &a.Number, &a.Succeeded, &a.ResponseStatus, &a.Error, &a.AttemptedAt, &a.DurationMS); err != nil {
			return fmt.Errorf("reading attempt: %w", err)
		}
		i := index[id]
		out[i].Attempts = append(out[i].Attempts, a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("listing attempts: %w", err)
	}
	return nil
}
