package app

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// TenantsConsumer names the consumer of identity-svc's tenant events in the
// inbox.
const TenantsConsumer = "transactions-svc.tenants"

// maxTenantName bounds the stored display name (the column's CHECK).
const maxTenantName = 200

// tenantData is what transactions-svc reads of identity-svc's tenant JSON.
type tenantData struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ApplyTenant keeps the tenant's display name from a tenant.updated event
// of identity-svc: the hosted pages show it to payers. Other events are not
// for it; redeliveries are skipped (inbox) and an older state never
// replaces a newer one.
func (a *App) ApplyTenant(ctx context.Context, env events.Envelope) error {
	if env.Type != events.TypeTenantUpdated {
		return nil
	}
	var t tenantData
	if err := env.Decode(&t); err != nil || t.ID == "" || checkID(t.ID) != nil {
		return nil // a malformed event cannot become well formed by retrying
	}
	name := strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(t.Name, "\x00", ""), ""))
	if name == "" {
		return nil
	}
	if utf8.RuneCountInString(name) > maxTenantName {
		name = string([]rune(name)[:maxTenantName])
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = env.OccurredAt
	}
	return a.store.Write(ctx, idempotency.Tx{}, t.ID, func(tx *store.Tx) error {
		first, err := tx.ClaimEvent(ctx, TenantsConsumer, env.ID)
		if err != nil || !first {
			return err
		}
		return tx.SetTenantName(ctx, name, t.UpdatedAt)
	})
}

// TenantName returns the display name of the tenant, or "" while no tenant
// event has told it.
func (a *App) TenantName(ctx context.Context, tenantID string) (string, error) {
	var name string
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		var err error
		name, err = tx.TenantName(ctx)
		return err
	})
	return name, err
}

// LinkTenantName returns the display name of the tenant of the item of
// direction d behind a hosted-page link whose signature was verified, also
// when the item itself is gone (its link route stays), so the page of a
// link that expired or was revoked still names its sender.
func (a *App) LinkTenantName(ctx context.Context, d txn.Direction, id string) (string, error) {
	tenantID, err := a.route(ctx, d, id)
	if err != nil {
		return "", err
	}
	return a.TenantName(ctx, tenantID)
}
