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
	count, sel, args := deliveriesSQL(endpointID, f)
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting deliveries: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, w.Page(sel, deliveriesOrder, len(args)+1), w.Args(args)...)
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

// deliveriesSQL returns the count statement (a row per matching delivery,
// for listtotal) and the selection of ListDeliveries: an endpoint's
// deliveries, of f's status and event type when set, and their arguments.
// A filter
// that is not set is not in the text, so each combination is a statement
// of its own with its own generic plan in pgx's statement cache, as in the
// other lists ("status = $2 unless $2 is empty" is planned for both cases
// at once; listtotal.Where). Its page is the selection read by a
// listtotal.Window in deliveriesOrder (from the newest through
// deliveries_listed, or from the oldest by a backward scan of it).
func deliveriesSQL(endpointID string, f DeliveryFilter) (count, sel string, args []any) {
	var where listtotal.Where
	where.And("endpoint_id = $%d", endpointID)
	if f.Status != "" {
		where.And("status = $%d", f.Status)
	}
	if f.EventType != "" {
		where.And("event_type = $%d", f.EventType)
	}
	from := " FROM deliveries" + where.SQL()
	return `SELECT 1` + from, `SELECT id, endpoint_id, event_id, event_type, status, attempt_count,
		response_status, last_error, next_attempt_at, delivered_at, created_at` + from, where.Args()
}

// deliveriesOrder is the order of a list of deliveries: newest first.
const deliveriesOrder = "created_at DESC, id DESC"

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
