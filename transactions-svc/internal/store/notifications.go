package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Notification is an SMS transactions-svc asked optin-svc to send: its
// notification.requested event carries the ids, this the number and text.
type Notification struct {
	ID        string
	ItemID    string
	Direction txn.Direction
	Kind      string
	To        string
	Body      string
	CreatedAt time.Time
}

// SaveNotifications records notifications in one statement, in the
// transaction that writes their events.
func (t *Tx) SaveNotifications(ctx context.Context, list []Notification) error {
	if len(list) == 0 {
		return nil
	}
	n := len(list)
	ids, items, dirs, kinds := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	to, bodies := make([]string, n), make([]string, n)
	for i, m := range list {
		ids[i], items[i], dirs[i], kinds[i], to[i], bodies[i] = m.ID, m.ItemID, string(m.Direction), m.Kind, m.To, m.Body
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO notifications (tenant_id, id, item_id, direction, kind, to_phone, body)
		SELECT $1, u.id, u.item_id, u.direction, u.kind, u.to_phone, u.body
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
		       AS u(id, item_id, direction, kind, to_phone, body)`,
		t.tenantID, ids, items, dirs, kinds, to, bodies)
	if err != nil {
		return fmt.Errorf("recording notifications: %w", err)
	}
	return nil
}

// Notification returns the tenant's notification id; an unknown (or expired) id is txn.ErrNotFound.
func (t *Tx) Notification(ctx context.Context, id string) (Notification, error) {
	var m Notification
	err := t.tx.QueryRow(ctx, `SELECT id, item_id, direction, kind, to_phone, body, created_at
		  FROM notifications WHERE id = $1`, id).Scan(&m.ID, &m.ItemID, &m.Direction, &m.Kind, &m.To, &m.Body, &m.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Notification{}, fmt.Errorf("notification %s: %w", id, txn.ErrNotFound)
	}
	if err != nil {
		return Notification{}, fmt.Errorf("reading notification: %w", err)
	}
	return m, nil
}

// NotificationsByID returns the tenant's notifications among ids, in no
// particular order; unknown and expired ids are left out. One statement, by
// the primary key.
func (t *Tx) NotificationsByID(ctx context.Context, ids []string) ([]Notification, error) {
	rows, err := t.tx.Query(ctx, `SELECT id, item_id, direction, kind, to_phone, body, created_at
		  FROM notifications WHERE tenant_id = $1 AND id = ANY($2::text[])`, t.tenantID, ids)
	if err != nil {
		return nil, fmt.Errorf("reading notifications: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Notification, error) {
		var m Notification
		err := r.Scan(&m.ID, &m.ItemID, &m.Direction, &m.Kind, &m.To, &m.Body, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading notifications: %w", err)
	}
	return list, nil
}
