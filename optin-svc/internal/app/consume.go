package app

import (
	"context"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// ConsumedTopics are the topics HandleEvent reads.
func ConsumedTopics() []string {
	return []string{events.TopicTransactions, events.TopicIdentity}
}

// HandleEvent applies one consumed event: notification.requested queues an
// SMS, tenant.updated refreshes the local copy of the tenant; anything else
// is not for optin-svc.
func (a *App) HandleEvent(ctx context.Context, env events.Envelope) error {
	switch env.Type {
	case events.TypeNotificationRequested:
		return a.RequestNotification(ctx, env)
	case events.TypeTenantUpdated:
		return a.ApplyTenant(ctx, env)
	}
	return nil
}

// tenantData is what optin-svc reads of identity-svc's tenant JSON.
type tenantData struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	SMSNumber     *string `json:"sms_number"`
	DefaultRegion string  `json:"default_region"`
	Flags         struct {
		OptIn bool `json:"opt_in"`
	} `json:"flags"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ApplyTenant handles tenant.updated: the tenant's sender number (which
// routes inbound SMS to it), name and region. Replays and late events are
// harmless: an older state never replaces a newer one.
func (a *App) ApplyTenant(ctx context.Context, env events.Envelope) error {
	var t tenantData
	if err := env.Decode(&t); err != nil || t.ID == "" {
		a.log.Error("skipping an undecodable tenant event", "event_id", env.ID, "err", err)
		return nil
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = env.OccurredAt
	}
	rec := store.Tenant{ID: t.ID, Name: t.Name, DefaultRegion: t.DefaultRegion, OptIn: t.Flags.OptIn, UpdatedAt: t.UpdatedAt}
	if t.SMSNumber != nil {
		rec.SMSNumber = *t.SMSNumber
	}
	if err := a.store.ApplyTenant(ctx, rec); err != nil {
		return fmt.Errorf("applying tenant %s: %w", t.ID, err)
	}
	return nil
}
