package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// WriteQueued is Write for the dispatcher's work on many messages of a
// tenant at once: a transaction of its own (tenancy.Pipelined), in which the
// writes of this file whose result nobody waits for (UpdateMessages,
// DequeueMessages, EnqueueMessages, RecordConversations) travel with the
// next statement or with COMMIT instead of costing a round trip each.
func (s *Store) WriteQueued(ctx context.Context, tenantID string, fn func(*Tx) error) error {
	return tenancy.Pipelined(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		return fn(&Tx{tx: tx, tenantID: tenantID, listCap: s.ListCap, lists: &s.lists})
	})
}

// The dispatcher's statements that take a list of messages or numbers,
// exported for the tests of their plans. Each looks up one element at a
// time through a LATERAL subquery on a unique key, which the planner
// probes once per element; joined to the list as a whole (id = ANY, a
// join or EXISTS), their plans read the tenant's rows through an index on
// tenant_id and compared each with the list, analyzed or not.
const (
	MessagesForUpdateSQL = `SELECT ` + messageColumns + ` FROM unnest($1::text[]) AS x(message_id)
		CROSS JOIN LATERAL (SELECT * FROM messages WHERE messages.id = x.message_id LIMIT 1 FOR UPDATE) m
		ORDER BY id`
	// SuppressedAmongSQL reads a number's entries (one a channel) by
	// tenant and number and keeps the channel's outside the subquery:
	// with the channel inside, a table without statistics rates
	// suppressions_list_idx (tenant, channel) as cheap as the key and may
	// read the tenant's whole list for every number.
	SuppressedAmongSQL = `SELECT p.phone FROM unnest($1::text[]) AS p(phone)
		CROSS JOIN LATERAL (SELECT s.channel FROM suppressions s WHERE s.phone = p.phone OFFSET 0) s
		WHERE s.channel = $2`
	// UpdateMessagesSQL finds each row by its id, then updates it by its
	// ctid (the row the transaction has locked).
	UpdateMessagesSQL = `UPDATE messages m SET from_phone = nullif(u.from_phone, ''), status = u.status,
		provider = u.provider, provider_message_id = nullif(u.provider_message_id, ''), attempts = u.attempts,
		failure_reason = nullif(u.failure_reason, ''), sent_at = u.sent_at, delivered_at = u.delivered_at,
		failed_at = u.failed_at, updated_at = u.updated_at
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
		            $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[])
		  AS u(id, from_phone, status, provider, provider_message_id, attempts, failure_reason,
		       sent_at, delivered_at, failed_at, updated_at)
		CROSS JOIN LATERAL (SELECT ctid FROM messages WHERE messages.id = u.id LIMIT 1) x
		WHERE m.ctid = x.ctid`
)

// MessagesForUpdate returns the messages of the ids that exist, ordered by
// id (the order their locks are taken in), locked until the transaction
// ends.
func (t *Tx) MessagesForUpdate(ctx context.Context, ids []string) ([]optin.Message, error) {
	rows, err := t.tx.Query(ctx, MessagesForUpdateSQL, ids)
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Message, error) { return scanMessage(r) })
	if err != nil {
		return nil, fmt.Errorf("reading messages: %w", err)
	}
	return list, nil
}

// UpdateMessages writes the mutable fields of each message, as
// UpdateMessage does for one, in one statement (deferred in WriteQueued).
func (t *Tx) UpdateMessages(ctx context.Context, ms []optin.Message) error {
	if len(ms) == 0 {
		return nil
	}
	n := len(ms)
	ids, from, status, provider, providerID, reason := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n)
	attempts := make([]int32, n)
	sent, delivered, failed := make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
	updated := make([]time.Time, n)
	for i, m := range ms {
		ids[i], from[i], status[i], provider[i], providerID[i], reason[i] = m.ID, m.From, m.Status, m.Provider,
			m.ProviderMessageID, m.FailureReason
		attempts[i] = int32(m.Attempts)
		sent[i], delivered[i], failed[i], updated[i] = m.SentAt, m.DeliveredAt, m.FailedAt, m.UpdatedAt
	}
	err := tenancy.Defer(ctx, t.tx, UpdateMessagesSQL,
		ids, from, status, provider, providerID, attempts, reason, sent, delivered, failed, updated)
	if err != nil {
		return fmt.Errorf("updating messages: %w", err)
	}
	return nil
}

// DequeueMessages removes messages from the send queue (deferred in
// WriteQueued).
func (t *Tx) DequeueMessages(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := tenancy.Defer(ctx, t.tx, `DELETE FROM send_queue WHERE message_id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("dequeueing messages: %w", err)
	}
	return nil
}

// Due is a message of the tenant to call the provider for at At.
type Due struct {
	MessageID string
	At        time.Time
}

// EnqueueMessages schedules a provider call for each message at its own
// time, in one statement (deferred in WriteQueued); a message already in
// the queue gets the new time and loses its lease.
func (t *Tx) EnqueueMessages(ctx context.Context, due []Due) error {
	if len(due) == 0 {
		return nil
	}
	ids, at := make([]string, len(due)), make([]time.Time, len(due))
	for i, d := range due {
		ids[i], at[i] = d.MessageID, d.At
	}
	err := tenancy.Defer(ctx, t.tx, `INSERT INTO send_queue (message_id, tenant_id, due_at)
		SELECT u.message_id, $3, u.due_at FROM unnest($1::text[], $2::timestamptz[]) AS u(message_id, due_at)
		ON CONFLICT (message_id) DO UPDATE SET due_at = EXCLUDED.due_at, leased_until = NULL`,
		ids, at, t.tenantID)
	if err != nil {
		return fmt.Errorf("queueing messages: %w", err)
	}
	return nil
}

// Conversation is a number the tenant wrote to from a sender number.
type Conversation struct {
	From, To string
	At       time.Time
}

// RecordConversations remembers that the tenant last wrote to each number
// from a sender number, in one statement (deferred in WriteQueued); of
// entries with the same numbers the latest counts, and an entry never
// replaces a later one of another tenant.
func (t *Tx) RecordConversations(ctx context.Context, cs []Conversation) error {
	latest := make(map[[2]string]time.Time, len(cs))
	for _, c := range cs {
		k := [2]string{c.From, c.To}
		if at, ok := latest[k]; !ok || c.At.After(at) {
			latest[k] = c.At
		}
	}
	if len(latest) == 0 {
		return nil
	}
	from, to, at := make([]string, 0, len(latest)), make([]string, 0, len(latest)), make([]time.Time, 0, len(latest))
	for k, v := range latest {
		from, to, at = append(from, k[0]), append(to, k[1]), append(at, v)
	}
	err := tenancy.Defer(ctx, t.tx, `INSERT INTO conversations (from_phone, to_phone, tenant_id, last_sent_at)
		SELECT u.from_phone, u.to_phone, $4, u.at FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(from_phone, to_phone, at)
		ON CONFLICT (from_phone, to_phone) DO UPDATE SET tenant_id = EXCLUDED.tenant_id, last_sent_at = EXCLUDED.last_sent_at
		WHERE conversations.last_sent_at <= EXCLUDED.last_sent_at`, from, to, at, t.tenantID)
	if err != nil {
		return fmt.Errorf("recording conversations: %w", err)
	}
	return nil
}
