// Package events defines the envelope every Paylane event travels in, the
// Kafka topics, the event types shared by producers and consumers, and Consume,
// the consumer-group loop services use to handle them.
//
// Every consumer of a topic reads every event on it, so event data carries
// ids, states and what each of them may read: never a full phone number, a
// signed link or an SMS text. A consumer that needs such a value reads it
// from its owner by id over an internal call (notification.requested: the
// number and text from transactions-svc).
package events

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/ids"
)

// Envelope wraps every event on every topic. ID (a ULID) is unique per event and
// stays the same across redeliveries; consumers de-duplicate on it (inbox).
type Envelope struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	TenantID   string          `json:"tenant_id"`
	OccurredAt time.Time       `json:"occurred_at"`
	RequestID  string          `json:"request_id"`
	Data       json.RawMessage `json:"data"`
}

// New returns an envelope with a new ID, OccurredAt now (UTC, microseconds, as
// Postgres keeps time) and data encoded as JSON.
func New(typ, tenantID, requestID string, data any) (Envelope, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("encoding %s event data: %w", typ, err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	return Envelope{
		ID:         ids.NewAt(now),
		Type:       typ,
		TenantID:   tenantID,
		OccurredAt: now,
		RequestID:  requestID,
		Data:       raw,
	}, nil
}

// Decode unmarshals the envelope's data into v.
func (e Envelope) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decoding %s event %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// Event types published by identity-svc. Both are internal: webhook-svc does not
// deliver them to tenants.
const (
	// TypeTokenRevoked: an API token was revoked; data is TokenRevoked.
	TypeTokenRevoked = "token.revoked"
	// TypeTenantUpdated: a tenant was created or changed; data is the tenant.
	TypeTenantUpdated = "tenant.updated"
)

// TokenRevoked is the data of token.revoked. The gateway evicts the token's
// cached introspection when it sees it.
type TokenRevoked struct {
	TokenID  int64  `json:"token_id"`
	TenantID string `json:"tenant_id,omitempty"`
}
