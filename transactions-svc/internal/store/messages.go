package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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

// TransactionMessage is a message reported for the transaction it is about.
type TransactionMessage struct {
	TransactionID string
	Message       LatestMessage
}

// MessageState is a message's state reported for the notification it was
// sent for.
type MessageState struct {
	NotificationID string
	Status         string
	SentAt         *time.Time
	UpdatedAt      time.Time
}

// setLatestMessagesSQL records each message as its transaction's latest
// message when it is newer: a message created later than the one shown, or
// a later (or equally recent) update of the same message. Each transaction
// may appear once.
const setLatestMessagesSQL = `UPDATE transactions t SET latest_message = u.message::jsonb
  FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
       AS u(id, message, message_id, created_at, updated_at)
 WHERE t.id = u.id AND (t.latest_message IS NULL
   OR (t.latest_message->>'created_at')::timestamptz < u.created_at
   OR (t.latest_message->>'id' = u.message_id AND (t.latest_message->>'updated_at')::timestamptz <= u.updated_at))`

// setMessageStatesSQL records each state on its notification unless a later
// report is there already. Each notification may appear once.
const setMessageStatesSQL = `UPDATE notifications n
   SET message_status = u.status, message_sent_at = u.sent_at, message_updated_at = u.updated_at
  FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS u(id, status, sent_at, updated_at)
 WHERE n.id = u.id AND (n.message_updated_at IS NULL OR n.message_updated_at <= u.updated_at)`

// RecordMessages applies optin-svc's reports: each entry of latest becomes
// its transaction's latest_message when it is newer than the one shown,
// and each entry of states its notification's message state unless a later
// report is there already. Events may arrive out of order; older news is
// ignored, in the database, so an entry never replaces a newer one stored
// before. The entries are applied in order, as if one at a time: a
// transaction's (or notification's) first entry in one statement, its
// second in the next, and so on; callers keep that to one statement each by
// passing only the entry that wins per transaction and notification. All
// statements go to the server as one pipelined batch. Ids of other tenants
// and unknown ids change nothing.
func (t *Tx) RecordMessages(ctx context.Context, latest []TransactionMessage, states []MessageState) error {
	b := &pgx.Batch{}
	for _, round := range rounds(len(latest), func(i int) string { return latest[i].TransactionID }) {
		n := len(round)
		txIDs, bodies, msgIDs := make([]string, n), make([]string, n), make([]string, n)
		created, updated := make([]time.Time, n), make([]time.Time, n)
		for j, i := range round {
			m := latest[i].Message
			body, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("recording latest messages: %w", err)
			}
			txIDs[j], bodies[j], msgIDs[j], created[j], updated[j] = latest[i].TransactionID, string(body), m.ID, m.CreatedAt, m.UpdatedAt
		}
		b.Queue(setLatestMessagesSQL, txIDs, bodies, msgIDs, created, updated)
	}
	for _, round := range rounds(len(states), func(i int) string { return states[i].NotificationID }) {
		n := len(round)
		notIDs, statuses := make([]string, n), make([]string, n)
		sent, updated := make([]*time.Time, n), make([]time.Time, n)
		for j, i := range round {
			s := states[i]
			notIDs[j], statuses[j], sent[j], updated[j] = s.NotificationID, s.Status, s.SentAt, s.UpdatedAt
		}
		b.Queue(setMessageStatesSQL, notIDs, statuses, sent, updated)
	}
	if b.Len() == 0 {
		return nil
	}
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("recording messages: %w", err)
	}
	return nil
}

// rounds splits n entries, keyed by key, into rounds in which each key
// appears at most once: round r holds the r-th entry of every key, so
// applying the rounds in turn applies each key's entries in their order.
func rounds(n int, key func(int) string) [][]int {
	var out [][]int
	seen := make(map[string]int, n)
	for i := range n {
		k := key(i)
		r := seen[k]
		seen[k] = r + 1
		if r == len(out) {
			out = append(out, nil)
		}
		out[r] = append(out[r], i)
	}
	return out
}

// ClaimEvent records that consumer handles eventID in this transaction and
// reports whether it is the first time (libs/inbox).
func (t *Tx) ClaimEvent(ctx context.Context, consumer, eventID string) (bool, error) {
	return inbox.Claim(ctx, t.tx, consumer, eventID)
}

// ClaimEvents is ClaimEvent for many events in one statement: it returns
// the ids of eventIDs claimed now (sorted), leaving out redeliveries and
// repeated ids (libs/inbox.ClaimAll).
func (t *Tx) ClaimEvents(ctx context.Context, consumer string, eventIDs []string) ([]string, error) {
	return inbox.ClaimAll(ctx, t.tx, consumer, eventIDs)
}
