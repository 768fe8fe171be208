package store

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// RecentFailures returns the tenant's latest deliveries whose last attempt
// failed (retrying or failed), across its live endpoints, latest attempt
// first, at most limit.
func (t *Tx) RecentFailures(ctx context.Context, limit int) ([]webhook.Failure, error) {
	rows, err := t.tx.Query(ctx, `SELECT d.id, d.endpoint_id, e.name, e.url, d.event_id, d.event_type, d.status,
		d.attempt_count, d.response_status, d.last_error, d.updated_at
		FROM deliveries d JOIN endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
		WHERE d.status IN ('retrying', 'failed') AND e.deleted_at IS NULL
		ORDER BY d.updated_at DESC, d.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing failed deliveries: %w", err)
	}
	defer rows.Close()
	out := []webhook.Failure{}
	for rows.Next() {
		var f webhook.Failure
		if err := rows.Scan(&f.ID, &f.EndpointID, &f.EndpointName, &f.EndpointURL, &f.EventID, &f.EventType, &f.Status,
			&f.AttemptCount, &f.ResponseStatus, &f.LastError, &f.LastAttemptAt); err != nil {
			return nil, fmt.Errorf("reading failed delivery: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing failed deliveries: %w", err)
	}
	return out, nil
}
