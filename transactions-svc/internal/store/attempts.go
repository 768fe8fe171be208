package store

import (
	"context"
	"fmt"
	"time"
)

// Attempt is one answer of the payment rail: a charge, an identity check or
// a disbursement. Numbers are kept as their last four digits only.
type Attempt struct {
	ID            string
	ItemID        string
	Kind          string
	Outcome       string
	Brand         *string
	Last4         *string
	FailureReason *string
	CreatedAt     time.Time
}

// RecordAttempt stores an attempt.
func (t *Tx) RecordAttempt(ctx context.Context, a Attempt) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO attempts (id, tenant_id, item_id, kind, outcome, brand, last4, failure_reason, created_at)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		a.ID, t.tenantID, a.ItemID, a.Kind, a.Outcome, a.Brand, a.Last4, a.FailureReason, a.CreatedAt)
	if err != nil {
		return fmt.Errorf("recording attempt: %w", err)
	}
	return nil
}

// Attempts returns an item's attempts, oldest first.
func (t *Tx) Attempts(ctx context.Context, itemID string) ([]Attempt, error) {
	rows, err := t.tx.Query(ctx, `SELECT id, item_id, kind, outcome, brand, last4, failure_reason, created_at
 FROM attempts WHERE item_id = $1 ORDER BY created_at, id`, itemID)
	if err != nil {
		return nil, fmt.Errorf("listing attempts: %w", err)
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var a Attempt
		if err := rows.Scan(&a.ID, &a.ItemID, &a.Kind, &a.Outcome, &a.Brand, &a.Last4, &a.FailureReason, &a.CreatedAt); err != nil {
			return nil, fmt.Errorf("reading attempt: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
