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

// InsertMessages stores msgs in one statement, each unless the tenant
// already has a message of its notification id (or an earlier one of msgs
// has it), and returns the ids of those stored; the others change nothing.
func (t *Tx) InsertMessages(ctx context.Context, msgs []optin.Message) (map[string]bool, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	n := len(msgs)
	var (
		ids, notifications, kinds, txns = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		contacts, to, from, bodies      = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		statuses, providers, reasons    = make([]string, n), make([]string, n), make([]string, n)
		attempts                        = make([]int32, n)
		failed                          = make([]*time.Time, n)
		created, updated                = make([]time.Time, n), make([]time.Time, n)
	)
	for i, m := range msgs {
		ids[i], notifications[i], kinds[i], txns[i] = m.ID, m.NotificationID, m.Kind, m.TransactionID
		contacts[i], to[i], from[i], bodies[i] = m.ContactID, m.To, m.From, m.Body
		statuses[i], providers[i], reasons[i] = m.Status, m.Provider, m.FailureReason
		attempts[i], failed[i], created[i], updated[i] = int32(m.Attempts), m.FailedAt, m.CreatedAt, m.UpdatedAt
	}
	rows, err := t.tx.Query(ctx, `INSERT INTO messages
		(id, tenant_id, notification_id, kind, transaction_id, contact_id, to_phone, from_phone, body,
		 status, provider, attempts, failure_reason, failed_at, created_at, updated_at)
		SELECT u.id, $1, u.notification_id, u.kind, nullif(u.transaction_id, ''), nullif(u.contact_id, ''), u.to_phone,
		       nullif(u.from_phone, ''), u.body, u.status, u.provider, u.attempts, nullif(u.failure_reason, ''),
		       u.failed_at, u.created_at, u.updated_at
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
		              $10::text[], $11::text[], $12::int[], $13::text[], $14::timestamptz[], $15::timestamptz[], $16::timestamptz[])
		       WITH ORDINALITY AS u(id, notification_id, kind, transaction_id, contact_id, to_phone, from_phone, body,
		              status, provider, attempts, failure_reason, failed_at, created_at, updated_at, ord)
		 ORDER BY u.ord
		ON CONFLICT (tenant_id, notification_id) DO NOTHING
		RETURNING id`,
		t.tenantID, ids, notifications, kinds, txns, contacts, to, from, bodies,
		statuses, providers, attempts, reasons, failed, created, updated)
	if err != nil {
		return nil, fmt.Errorf("inserting %d messages: %w", n, err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("inserting %d messages: %w", n, err)
	}
	out := make(map[string]bool, len(stored))
	for _, id := range stored {
		out[id] = true
	}
	return out, nil
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
// exact up to the store's ListCap, estimated above it). A page in the
// older half of an exact total is read from the oldest end
// (listtotal.Window).
func (t *Tx) ListMessages(ctx context.Context, to string, limit, offset int) ([]optin.Message, listtotal.Total, error) {
	count, sel, args := messagesSQL(to)
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting messages: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, w.Page(sel, messagesOrder, len(args)+1), w.Args(args)...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing messages: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Message, error) { return scanMessage(r) })
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing messages: %w", err)
	}
	return list, total, nil
}

// messagesSQL returns the count statement (a row per matching message, for
// listtotal) and the selection of ListMessages, to the number to unless it
// is empty, and their arguments. The condition on the number is in the text
// only when it filters: as "to_phone = $1 unless $1 is empty", the
// generic plan of pgx's statement cache walked messages_created_idx
// through the tenant with a filter instead of reading messages_to_idx.
// Its page is the selection read by a listtotal.Window in messagesOrder
// (from the newest, or from the oldest by a backward scan of the same
// index).
func messagesSQL(to string) (count, sel string, args []any) {
	var where listtotal.Where
	if to != "" {
		where.And("to_phone = $%d", to)
	}
	return `SELECT 1 FROM messages` + where.SQL(), `SELECT ` + messageColumns + ` FROM messages` + where.SQL(), where.Args()
}

// messagesOrder is the order of a list of messages: newest first.
const messagesOrder = "created_at DESC, id DESC"
