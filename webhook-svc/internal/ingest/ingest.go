// Package ingest is webhook-svc's event consumer: it reads every event topic
// and turns each public event into one delivery per subscribed, active
// endpoint of the event's tenant.
package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"github.com/paylane/paylane/webhook-svc/internal/wire"
)

// Group is the consumer group of webhook-svc.
const Group = "webhook-svc"

// Ingester handles consumed events.
type Ingester struct {
	store *store.Store
	now   func() time.Time
	log   *slog.Logger
}

// New returns an ingester; now is the clock deliveries are due by
// (time.Now when nil).
func New(s *store.Store, now func() time.Time, log *slog.Logger) *Ingester {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Ingester{store: s, now: now, log: log}
}

// Run consumes every topic as group Group until ctx is done.
func (in *Ingester) Run(ctx context.Context, brokers []string) error {
	return events.Consume(ctx, brokers, Group, events.AllTopics(), in.log, in.Handle)
}

// Handle turns one event into deliveries. Internal event types are skipped.
// A redelivered event creates nothing (the inbox claim), and the claim
// commits with the deliveries, so a crash between them loses nothing.
func (in *Ingester) Handle(ctx context.Context, env events.Envelope) error {
	if !events.IsPublic(env.Type) || env.TenantID == "" {
		return nil
	}
	body, err := Body(env)
	if err != nil {
		return err
	}
	now := in.now().UTC().Truncate(time.Microsecond)
	ev := store.Event{ID: env.ID, TenantID: env.TenantID, Type: env.Type, Body: body, CreatedAt: env.OccurredAt}
	n, err := in.store.Ingest(ctx, ev, webhook.PatternsFor(env.Type), now, func() string { return ids.NewAt(now) })
	if err != nil {
		return err
	}
	if n > 0 {
		in.log.Debug("event queued for delivery", "event_id", env.ID, "type", env.Type, "deliveries", n)
	}
	return nil
}

// payload is the body every delivery of an event sends (contract section 9).
type payload struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// Body renders the delivery body of an event: {"id", "type",
// "created_at", "data"}.
func Body(env events.Envelope) ([]byte, error) {
	data := env.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b, err := wire.Marshal(payload{ID: env.ID, Type: env.Type, CreatedAt: wire.Time(env.OccurredAt), Data: data})
	if err != nil {
		return nil, fmt.Errorf("rendering event %s: %w", env.ID, err)
	}
	return b, nil
}
