package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

const messageColumns = `id, tenant_id, notification_id, kind, coalesce(transaction_id, ''), coalesce(contact_id, ''),
	to_phone, coalesce(from_phone, ''), body, status, provider, coalesce(provider_message_id, ''), attempts,
	coalesce(failure_reason, ''), sent_at, delivered_at, failed_at, created_at, updated_at`

func scanMessage(row pgx.Row) (optin.Message, error) {
	var m optin.Message
	err := row.Scan(&m.ID, &m.TenantID, &m.NotificationID, &m.Kind, &m.TransactionID, &m.ContactID,
		&m.To, &m.From, &m.Body, &m.Status, &m.Provider, &m.ProviderMessageID, &m.Attempts,
		&m.FailureReason, &m.SentAt, &m.DeliveredAt, &m.FailedAt, &m.CreatedAt, &m.UpdatedAt)
	return m, err
}

// InsertMessage stores m unless the tenant already has a message of its
// notification id; created is false (and nothing changes) then.
func (t *Tx) InsertMessage(ctx context.Context, m optin.Message) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO messages
		(id, tenant_id, notification_id, kind, transaction_id, contact_id, to_phone, from_phone, body,
		 status, provider, attempts, failure_reason, failed_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, nullif($5, ''), nullif($6, ''), $7, nullif($8, ''), $9,
		 $10, $11, $12, nullif($13, ''), $14, $15, $16)
		ON CONFLICT (tenant_id, notification_id) DO NOTHING`,
		m.ID, t.tenantID, m.NotificationID, m.Kind, m.TransactionID, m.ContactID, m.To, m.From, m.Body,
		m.Status, m.Provider, m.Attempts, m.FailureReason, m.FailedAt, m.CreatedAt, m.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("inserting message: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Message returns a message by id (ErrNotFound when none); forUpdate locks
// it until the transaction ends.
func (t *Tx) Message(ctx context.Context, id string, forUpdate bool) (optin.Message, error) {
	q := `SELECT ` + messageColumns + ` FROM messages WHERE id = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	m, err := scanMessage(t.tx.QueryRow(ctx, q, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return optin.Message{}, optin.ErrNotFound
	}
	if err != nil {
		return optin.Message{}, fmt.Errorf("reading message: %w", err)
	}
	return m, nil
}

// UpdateMessage writes the mutable fields of m.
func (t *Tx) UpdateMessage(ctx context.Context, m optin.Message) error {
	_, err := t.tx.Exec(ctx, `UPDATE messages SET from_phone = nullif($2, ''), status = $3, provider = $4,
		provider_message_id = nullif($5, ''), attempts = $6, failure_reason = nullif($7, ''),
		sent_at = $8, delivered_at = $9, failed_at = $10, updated_at = $11 WHERE id = $1`,
		m.ID, m.From, m.Status, m.Provider, m.ProviderMessageID, m.Attempts, m.FailureReason,
		m.SentAt, m.DeliveredAt, m.FailedAt, m.UpdatedAt)
	if err != nil {
		return fmt.Errorf("updating message: %w", err)
	}
	return nil
}

// ListMessages returns one page of the tenant's messages, newest first,
// only those to the number when to is not empty, and the total (listtotal:
// exact up to the store's ListCap, estimated above it).
func (t *Tx) ListMessages(ctx context.Context, to string, limit, offset int) ([]optin.Message, listtotal.Total, error) {
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, `SELECT 1 FROM messages WHERE ($1 = '' OR to_phone = $1)`, to)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting messages: %w", err)
	}
	rows, err := t.tx.Query(ctx, `SELECT `+messageColumns+` FROM messages WHERE ($1 = '' OR to_phone = $1)
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, to, limit, offset)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing messages: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Message, error) { return scanMessage(r) })
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing messages: %w", err)
	}
	return list, total, nil
}

// Enqueue schedules a provider call for a message of the tenant at due.
func (t *Tx) Enqueue(ctx context.Context, messageID string, due time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO send_queue (message_id, tenant_id, due_at) VALUES ($1, $2, $3)
		ON CONFLICT (message_id) DO UPDATE SET due_at = EXCLUDED.due_at, leased_until = NULL`,
		messageID, t.tenantID, due)
	if err != nil {
		return fmt.Errorf("queueing message: %w", err)
	}
	return nil
}

// Dequeue removes a message from the send queue.
func (t *Tx) Dequeue(ctx context.Context, messageID string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM send_queue WHERE message_id = $1`, messageID); err != nil {
		return fmt.Errorf("dequeueing message: %w", err)
	}
	return nil
}

// RecordConversation remembers that the tenant last wrote to a number from
// a sender number.
func (t *Tx) RecordConversation(ctx context.Context, from, to string, at time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO conversations (from_phone, to_phone, tenant_id, last_sent_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (from_phone, to_phone) DO UPDATE SET tenant_id = EXCLUDED.tenant_id, last_sent_at = EXCLUDED.last_sent_at
		WHERE conversations.last_sent_at <= EXCLUDED.last_sent_at`, from, to, t.tenantID, at)
	if err != nil {
		return fmt.Errorf("recording conversation: %w", err)
	}
	return nil
}
