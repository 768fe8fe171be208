package app

import (
	"context"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// CreateCampaign validates and stores a draft campaign.
func (a *App) CreateCampaign(ctx context.Context, scope Scope, in campaign.Input) (campaign.Campaign, error) {
	c, err := campaign.New(in)
	if err != nil {
		return campaign.Campaign{}, err
	}
	now := a.Now()
	c.ID, c.TenantID, c.CreatedAt, c.UpdatedAt = ids.NewAt(now), scope.TenantID, now, now
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error { return tx.InsertCampaign(ctx, c) })
	return c, err
}

// GetCampaign returns a live campaign.
func (a *App) GetCampaign(ctx context.Context, scope Scope, id string) (campaign.Campaign, error) {
	if checkID(id) != nil {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	var c campaign.Campaign
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		c, err = tx.Campaign(ctx, id, false)
		return err
	})
	return c, err
}

// ListCampaigns returns a page of live campaigns, newest first, and the
// total.
func (a *App) ListCampaigns(ctx context.Context, scope Scope, p Page) ([]campaign.Campaign, int, error) {
	var (
		list  []campaign.Campaign
		total int
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListCampaigns(ctx, p.Limit, p.Offset)
		return err
	})
	return list, total, err
}

// ReplaceCampaign applies a PUT (campaign.Campaign.Replace).
func (a *App) ReplaceCampaign(ctx context.Context, scope Scope, id string, in campaign.Input) (campaign.Campaign, error) {
	return a.changeCampaign(ctx, scope, id, func(c campaign.Campaign) (campaign.Campaign, error) { return c.Replace(in) })
}

// PublishCampaign moves a draft campaign to published; any other status is
// 422 invalid_transition.
func (a *App) PublishCampaign(ctx context.Context, scope Scope, id string) (campaign.Campaign, error) {
	return a.changeCampaign(ctx, scope, id, campaign.Campaign.Publish)
}

// DeleteCampaign soft-deletes a campaign: it is no longer listed, matched
// or assignable; transactions keep their campaign_id.
func (a *App) DeleteCampaign(ctx context.Context, scope Scope, id string) error {
	_, err := a.changeCampaign(ctx, scope, id, func(c campaign.Campaign) (campaign.Campaign, error) {
		now := a.Now()
		c.DeletedAt = &now
		return c, nil
	})
	return err
}

// changeCampaign locks a campaign, applies fn and writes the result.
func (a *App) changeCampaign(ctx context.Context, scope Scope, id string,
	fn func(campaign.Campaign) (campaign.Campaign, error)) (campaign.Campaign, error) {
	if checkID(id) != nil {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	var out campaign.Campaign
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		c, err := tx.Campaign(ctx, id, true)
		if err != nil {
			return err
		}
		if out, err = fn(c); err != nil {
			return err
		}
		out.UpdatedAt = a.Now()
		return tx.UpdateCampaign(ctx, out)
	})
	return out, err
}
