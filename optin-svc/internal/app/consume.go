package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// ConsumedTopics are the topics HandleBatch reads.
func ConsumedTopics() []string {
	return []string{events.TopicTransactions, events.TopicIdentity}
}

// HandleBatch applies a batch of consumed events (events.ConsumeBatch):
// tenant.updated refreshes the local copy of the tenant, one event after
// the other in their order; notification.requested queues SMS, per tenant
// in one go (RequestNotifications); anything else is not for optin-svc.
// An error fails the whole batch, which is retried: the inbox makes the
// retry skip the tenants whose events committed before it.
func (a *App) HandleBatch(ctx context.Context, batch []events.Envelope) error {
	var notifications []events.Envelope
	for _, env := range batch {
		switch env.Type {
		case events.TypeTenantUpdated:
			if err := a.ApplyTenant(ctx, env); err != nil {
				return err
			}
		case events.TypeNotificationRequested:
			if tenancy.CheckTenantID(env.TenantID) != nil {
				// No tenant has this id: retrying would hold the batch back forever.
				a.log.Error("skipping a notification of a malformed tenant id", "event_id", env.ID)
				continue
			}
			notifications = append(notifications, env)
		}
	}
	for _, g := range tenancy.ByTenant(notifications, func(env events.Envelope) string { return env.TenantID }) {
		if err := a.RequestNotifications(ctx, g.TenantID, g.Items); err != nil {
			return err
		}
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
	if err := env.Decode(&t); err != nil || tenancy.CheckTenantID(t.ID) != nil {
		a.log.Error("skipping an undecodable tenant event", "event_id", env.ID, "err", err)
		return nil
	}
	if strings.ContainsRune(t.Name+t.DefaultRegion, 0) || (t.SMSNumber != nil && strings.ContainsRune(*t.SMSNumber, 0)) {
		a.log.Error("skipping a tenant event that cannot be stored", "event_id", env.ID)
		return nil // a NUL fits no text column: the statement would fail on every retry
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
