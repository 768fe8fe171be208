package store

import (
	"context"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/inbox"
)

// LatestMessage is the state of one SMS as optin-svc reports it.
type LatestMessage struct {
	ID        string     `json:"id"`
	Status    string     `json:"status"`
	Channel   string     `json:"channel"`
	SentAt    *time.Time `json:"sent_at"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// SetLatestMessage records m as the transaction's latest message when it is
// newer: a message created later than the one shown, or a later update of
// the same message. Events may arrive out of order; older news is ignored.
// It reports whether the transaction changed.
func (t *Tx) SetLatestMessage(ctx context.Context, transactionID string, m LatestMessage) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE transactions SET latest_message = $2
 WHERE id = $1 AND (latest_message IS NULL
   OR (latest_message->>'created_at')::timestamptz < $3
   OR (latest_message->>'id' = $4 AND (latest_message->>'updated_at')::timestamptz <= $5))`,
		transactionID, m, m.CreatedAt, m.ID, m.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("recording latest message: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// ClaimEvent records that consumer handles eventID in this transaction and
// reports whether it is the first time (libs/inbox).
func (t *Tx) ClaimEvent(ctx context.Context, consumer, eventID string) (bool, error) {
	return inbox.Claim(ctx, t.tx, consumer, eventID)
}
