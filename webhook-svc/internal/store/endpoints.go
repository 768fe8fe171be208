package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// EndpointRow is an endpoint as stored: the API fields plus the sealed
// secrets.
type EndpointRow struct {
	webhook.Endpoint
	// Secret is the sealed current signing secret.
	Secret []byte
	// PreviousSecret is the sealed secret replaced by the last rotation, which
	// still signs until PreviousSecretUntil.
	PreviousSecret      []byte
	PreviousSecretUntil *time.Time
}

const endpointColumns = `id, tenant_id, name, url, subscribed_events, is_active, consecutive_failures,
	last_succeeded_at, last_failed_at, disabled_at, created_at, updated_at,
	secret, previous_secret, previous_secret_until`

func scanEndpoint(row pgx.Row) (EndpointRow, error) {
	var e EndpointRow
	err := row.Scan(&e.ID, &e.TenantID, &e.Name, &e.URL, &e.SubscribedEvents, &e.IsActive,
		&e.ConsecutiveFailures, &e.LastSucceededAt, &e.LastFailedAt, &e.DisabledAt,
		&e.CreatedAt, &e.UpdatedAt, &e.Secret, &e.PreviousSecret, &e.PreviousSecretUntil)
	return e, err
}

// InsertEndpoint stores a new endpoint.
func (t *Tx) InsertEndpoint(ctx context.Context, e EndpointRow) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO endpoints (tenant_id, id, name, url, subscribed_events, is_active,
		secret, created_at, updated_at, disabled_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		t.tenantID, e.ID, e.Name, e.URL, e.SubscribedEvents, e.IsActive, e.Secret, e.CreatedAt, e.UpdatedAt, e.DisabledAt)
	if err != nil {
		return fmt.Errorf("inserting endpoint: %w", err)
	}
	return nil
}

// Endpoint returns the live endpoint id, locked for update when forUpdate;
// webhook.ErrNotFound when there is none.
func (t *Tx) Endpoint(ctx context.Context, id string, forUpdate bool) (EndpointRow, error) {
	q := `SELECT ` + endpointColumns + ` FROM endpoints WHERE id = $1 AND deleted_at IS NULL`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	e, err := scanEndpoint(t.tx.QueryRow(ctx, q, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return EndpointRow{}, webhook.ErrNotFound
	}
	if err != nil {
		return EndpointRow{}, fmt.Errorf("reading endpoint: %w", err)
	}
	return e, nil
}

// ListEndpoints returns a page of live endpoints, newest first, and how many
// there are in all.
func (t *Tx) ListEndpoints(ctx context.Context, limit, offset int) ([]webhook.Endpoint, int, error) {
	var total int
	if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM endpoints WHERE deleted_at IS NULL`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting endpoints: %w", err)
	}
	rows, err := t.tx.Query(ctx, `SELECT `+endpointColumns+` FROM endpoints WHERE deleted_at IS NULL
		ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing endpoints: %w", err)
	}
	defer rows.Close()
	var out []webhook.Endpoint
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("reading endpoint: %w", err)
		}
		out = append(out, e.Endpoint)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("listing endpoints: %w", err)
	}
	return out, total, nil
}

// UpdateEndpoint writes every mutable column of e.
func (t *Tx) UpdateEndpoint(ctx context.Context, e EndpointRow) error {
	_, err := t.tx.Exec(ctx, `UPDATE endpoints SET name = $2, url = $3, subscribed_events = $4, is_active = $5,
		secret = $6, previous_secret = $7, previous_secret_until = $8, consecutive_failures = $9,
		disabled_at = $10, updated_at = $11 WHERE id = $1`,
		e.ID, e.Name, e.URL, e.SubscribedEvents, e.IsActive, e.Secret, e.PreviousSecret, e.PreviousSecretUntil,
		e.ConsecutiveFailures, e.DisabledAt, e.UpdatedAt)
	if err != nil {
		return fmt.Errorf("updating endpoint: %w", err)
	}
	return nil
}

// DeleteEndpoint marks the endpoint deleted; its deliveries stay.
func (t *Tx) DeleteEndpoint(ctx context.Context, id string, now time.Time) error {
	_, err := t.tx.Exec(ctx, `UPDATE endpoints SET deleted_at = $2, updated_at = $2, is_active = false
		WHERE id = $1 AND deleted_at IS NULL`, id, now)
	if err != nil {
		return fmt.Errorf("deleting endpoint: %w", err)
	}
	return nil
}

// CancelOpenDeliveries cancels the pending and retrying deliveries of an
// endpoint and takes them off the dispatch queue; it returns how many.
func (t *Tx) CancelOpenDeliveries(ctx context.Context, endpointID string, now time.Time) (int64, error) {
	return cancelOpen(ctx, t.tx, endpointID, now)
}

func cancelOpen(ctx context.Context, tx pgx.Tx, endpointID string, now time.Time) (int64, error) {
	var n int64
	err := tx.QueryRow(ctx, `WITH c AS (
			UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = $2
			 WHERE endpoint_id = $1 AND status IN ('pending', 'retrying') RETURNING id),
		q AS (DELETE FROM delivery_queue q USING c WHERE q.delivery_id = c.id)
		SELECT count(*) FROM c`, endpointID, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cancelling open deliveries: %w", err)
	}
	return n, nil
}
