package store

import (
	"context"
	"fmt"
	"time"
)

// RecordInbound records an inbound SMS by its provider id; first is false
// when it was recorded before (a redelivered callback).
func (t *Tx) RecordInbound(ctx context.Context, id, messageSID, from, keyword string, at time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO inbound_messages (id, tenant_id, message_sid, from_phone, keyword, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, message_sid) DO NOTHING`,
		id, t.tenantID, messageSID, from, keyword, at)
	if err != nil {
		return false, fmt.Errorf("recording inbound message: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
