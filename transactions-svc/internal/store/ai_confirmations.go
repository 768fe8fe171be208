package store

import (
	"context"
	"fmt"
	"time"
)

// LockAIDay serialises the AI gateway confirms of the tenant until the
// transaction ends, so the daily guardrail's sum and the confirm that adds
// to it are one step: two concurrent confirms cannot both pass the limit.
func (t *Tx) LockAIDay(ctx context.Context) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/ai-day', 0))`, t.tenantID)
	if err != nil {
		return fmt.Errorf("locking the ai day: %w", err)
	}
	return nil
}

// AIConfirmedSince is the sum of the amounts confirmed through the AI
// gateway from since on.
func (t *Tx) AIConfirmedSince(ctx context.Context, since time.Time) (int64, error) {
	var sum int64
	err := t.tx.QueryRow(ctx, `SELECT coalesce(sum(amount), 0)::bigint FROM ai_confirmations
		WHERE tenant_id = $1 AND confirmed_at >= $2`, t.tenantID, since).Scan(&sum)
	if err != nil {
		return 0, fmt.Errorf("summing ai confirmations: %w", err)
	}
	return sum, nil
}

// RecordAIConfirmation records an AI gateway confirm of amount.
func (t *Tx) RecordAIConfirmation(ctx context.Context, transactionID string, amount int64, at time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO ai_confirmations (tenant_id, transaction_id, amount, confirmed_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, transaction_id) DO NOTHING`, t.tenantID, transactionID, amount, at)
	if err != nil {
		return fmt.Errorf("recording ai confirmation: %w", err)
	}
	return nil
}
