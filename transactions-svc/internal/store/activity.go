package store

import (
	"context"
	"fmt"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Transition is one change of an item's status; From is empty for its
// creation.
type Transition struct {
	From string
	To   string
	At   time.Time
}

// Transitions returns the state history of the item id, oldest first (the
// item_transitions trigger writes it).
func (t *Tx) Transitions(ctx context.Context, itemID string) ([]Transition, error) {
	rows, err := t.tx.Query(ctx, `SELECT coalesce(from_status, ''), to_status, at FROM item_transitions
 WHERE item_id = $1 ORDER BY id`, itemID)
	if err != nil {
		return nil, fmt.Errorf("reading transitions: %w", err)
	}
	defer rows.Close()
	var out []Transition
	for rows.Next() {
		var tr Transition
		if err := rows.Scan(&tr.From, &tr.To, &tr.At); err != nil {
			return nil, fmt.Errorf("reading transitions: %w", err)
		}
		out = append(out, tr)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading transitions: %w", err)
	}
	return out, nil
}

// SentMessage is an SMS asked for an item and its state as optin-svc
// reported it (Status empty until the first report).
type SentMessage struct {
	ID          string
	Kind        string
	RequestedAt time.Time
	Status      string
	SentAt      *time.Time
	UpdatedAt   *time.Time
}

// ItemMessages returns the SMS asked for the item id that are still kept
// (7 days), oldest first. Neither number nor text: they are not shown.
func (t *Tx) ItemMessages(ctx context.Context, itemID string) ([]SentMessage, error) {
	rows, err := t.tx.Query(ctx, `SELECT id, kind, created_at, coalesce(message_status, ''), message_sent_at, message_updated_at
  FROM notifications WHERE item_id = $1 ORDER BY created_at, id`, itemID)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	defer rows.Close()
	var out []SentMessage
	for rows.Next() {
		var m SentMessage
		if err := rows.Scan(&m.ID, &m.Kind, &m.RequestedAt, &m.Status, &m.SentAt, &m.UpdatedAt); err != nil {
			return nil, fmt.Errorf("reading messages: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	return out, nil
}

// StatusSum is how many live items of a status and currency there are and
// the sum of their amounts (minor units).
type StatusSum struct {
	Status   string
	Currency string
	Count    int
	Amount   int64
}

// Summary counts the live items of direction d created at or after since
// and sums their amounts, per status and currency.
func (t *Tx) Summary(ctx context.Context, d txn.Direction, since time.Time) ([]StatusSum, error) {
	rows, err := t.tx.Query(ctx, `SELECT status, currency, count(*), coalesce(sum(amount), 0) FROM `+table(d)+`
 WHERE deleted_at IS NULL AND created_at >= $1 GROUP BY status, currency ORDER BY status, currency`, since)
	if err != nil {
		return nil, fmt.Errorf("summing %ss: %w", d, err)
	}
	defer rows.Close()
	var out []StatusSum
	for rows.Next() {
		var s StatusSum
		if err := rows.Scan(&s.Status, &s.Currency, &s.Count, &s.Amount); err != nil {
			return nil, fmt.Errorf("summing %ss: %w", d, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("summing %ss: %w", d, err)
	}
	return out, nil
}
