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

	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"github.com/paylane/paylane/webhook-svc/internal/wire"
)

// Group is the consumer group of webhook-svc.
const Group = "webhook-svc"

// Ingester handles consumed events.
type Ingester struct {
	store  *store.Store
	now    func() time.Time
	log    *slog.Logger
	queued func()
}

// New returns an ingester; now is the clock deliveries are due by
// (time.Now when nil). queued, when set, is called after each commit that
// queued deliveries: the dispatcher's Wake, so a delivery goes out without
// waiting for the dispatcher's next poll.
func New(s *store.Store, now func() time.Time, log *slog.Logger, queued func()) *Ingester {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if queued == nil {
		queued = func() {}
	}
	return &Ingester{store: s, now: now, log: log, queued: queued}
}

// Run consumes every topic as group Group, in batches, until ctx is done.
func (in *Ingester) Run(ctx context.Context, brokers []string) error {
	return events.ConsumeBatch(ctx, brokers, Group, events.AllTopics(), events.BatchLimits{}, in.log, in.HandleBatch)
}

// Handle is HandleBatch of one event.
func (in *Ingester) Handle(ctx context.Context, env events.Envelope) error {
	return in.HandleBatch(ctx, []events.Envelope{env})
}

// HandleBatch turns a batch of events into deliveries. Internal event types
// are skipped. The public events are grouped by tenant (in the order the
// tenants first appear; each group keeps the batch's order), and each group
// is stored in one transaction scoped to its tenant (store.Ingest). A
// redelivered event creates nothing (the inbox claim), and the claims commit
// with the deliveries, so a crash loses nothing. When a group fails, the
// groups before it stay committed and the error is returned: the consumer
// retries the whole batch, and the inbox skips what is in already.
func (in *Ingester) HandleBatch(ctx context.Context, batch []events.Envelope) error {
	groups, err := byTenant(batch)
	if err != nil {
		return err
	}
	now := in.now().UTC().Truncate(time.Microsecond)
	newID := func() string { return ids.NewAt(now) }
	for _, g := range groups {
		n, err := in.store.Ingest(ctx, g.TenantID, g.Items, now, newID)
		if err != nil {
			return err
		}
		if n > 0 {
			in.queued()
			in.log.Debug("events queued for delivery", "tenant_id", g.TenantID, "events", len(g.Items), "deliveries", n)
		}
	}
	return nil
}

// byTenant renders the public events of batch and groups them by tenant.
// An event of a tenant id no tenant can have is skipped: its transaction
// would fail on every retry and hold the batch back.
func byTenant(batch []events.Envelope) ([]tenancy.Group[store.Event], error) {
	var list []store.Event
	for _, env := range batch {
		if !events.IsPublic(env.Type) || tenancy.CheckTenantID(env.TenantID) != nil {
			continue
		}
		body, err := Body(env)
		if err != nil {
			return nil, err
		}
		ev := store.Event{ID: env.ID, TenantID: env.TenantID, Type: env.Type, Body: body,
			CreatedAt: env.OccurredAt, Patterns: webhook.PatternsFor(env.Type)}
		list = append(list, ev)
	}
	return tenancy.ByTenant(list, func(ev store.Event) string { return ev.TenantID }), nil
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
	b, err := wire.Marshal(payload{ID: env.ID, Type: env.Type, CreatedAt: apitime.Format(env.OccurredAt), Data: data})
	if err != nil {
		return nil, fmt.Errorf("rendering event %s: %w", env.ID, err)
	}
	return b, nil
}
