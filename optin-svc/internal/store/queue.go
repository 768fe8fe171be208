package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// QueueItem is a message due for a provider call.
type QueueItem struct {
	MessageID, TenantID string
}

// ClaimDue leases up to limit due messages until now+lease, oldest first,
// skipping those another dispatcher holds. A lease that runs out (a
// dispatcher that died mid-call) makes the message due again.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]QueueItem, error) {
	rows, err := s.pool.Query(ctx, `UPDATE send_queue SET leased_until = $2
		WHERE message_id IN (
			SELECT message_id FROM send_queue
			WHERE due_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
			ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING message_id, tenant_id`, now, now.Add(lease), limit)
	if err != nil {
		return nil, fmt.Errorf("claiming due messages: %w", err)
	}
	items, err := pgx.CollectRows(rows, pgx.RowToStructByPos[QueueItem])
	if err != nil {
		return nil, fmt.Errorf("claiming due messages: %w", err)
	}
	return items, nil
}
