package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

const campaignColumns = "id, tenant_id, name, direction, status, is_active, priority, steps, rules, created_at, updated_at, deleted_at"

type storedStep struct {
	DelayHours int    `json:"delay_hours"`
	Message    string `json:"message"`
}

type storedRule struct {
	Field string          `json:"field"`
	Op    string          `json:"op"`
	Value json.RawMessage `json:"value"`
}

func scanCampaign(r pgx.Row) (campaign.Campaign, error) {
	var (
		c       campaign.Campaign
		dir, st string
		steps   []storedStep
		rules   []storedRule
	)
	err := r.Scan(&c.ID, &c.TenantID, &c.Name, &dir, &st, &c.IsActive, &c.Priority, &steps, &rules,
		&c.CreatedAt, &c.UpdatedAt, &c.DeletedAt)
	c.Direction, c.Status = txn.Direction(dir), campaign.Status(st)
	c.Steps = make([]campaign.Step, len(steps))
	for i, s := range steps {
		c.Steps[i] = campaign.Step{DelayHours: s.DelayHours, Message: s.Message}
	}
	c.Rules = make([]campaign.Rule, len(rules))
	for i, r := range rules {
		c.Rules[i] = campaign.Rule{Field: r.Field, Op: r.Op, Value: r.Value}
	}
	return c, err
}

func campaignJSON(c campaign.Campaign) ([]storedStep, []storedRule) {
	steps := make([]storedStep, len(c.Steps))
	for i, s := range c.Steps {
		steps[i] = storedStep{DelayHours: s.DelayHours, Message: s.Message}
	}
	rules := make([]storedRule, len(c.Rules))
	for i, r := range c.Rules {
		rules[i] = storedRule{Field: r.Field, Op: r.Op, Value: r.Value}
	}
	return steps, rules
}

// InsertCampaign stores a new campaign.
func (t *Tx) InsertCampaign(ctx context.Context, c campaign.Campaign) error {
	steps, rules := campaignJSON(c)
	_, err := t.tx.Exec(ctx, "INSERT INTO campaigns ("+campaignColumns+
		") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
		c.ID, t.tenantID, c.Name, c.Direction, c.Status, c.IsActive, c.Priority, steps, rules,
		c.CreatedAt, c.UpdatedAt, c.DeletedAt)
	if err != nil {
		return fmt.Errorf("inserting campaign: %w", err)
	}
	return nil
}

// UpdateCampaign writes every mutable column of c.
func (t *Tx) UpdateCampaign(ctx context.Context, c campaign.Campaign) error {
	steps, rules := campaignJSON(c)
	_, err := t.tx.Exec(ctx, `UPDATE campaigns SET name = $2, direction = $3, status = $4, is_active = $5,
 priority = $6, steps = $7, rules = $8, updated_at = $9, deleted_at = $10 WHERE id = $1`,
		c.ID, c.Name, c.Direction, c.Status, c.IsActive, c.Priority, steps, rules, c.UpdatedAt, c.DeletedAt)
	if err != nil {
		return fmt.Errorf("updating campaign: %w", err)
	}
	return nil
}

// Campaign returns a live (not deleted) campaign, locked FOR UPDATE when
// lock is true.
func (t *Tx) Campaign(ctx context.Context, id string, lock bool) (campaign.Campaign, error) {
	q := "SELECT " + campaignColumns + " FROM campaigns WHERE id = $1 AND deleted_at IS NULL"
	if lock {
		q += " FOR UPDATE"
	}
	c, err := scanCampaign(t.tx.QueryRow(ctx, q, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	if err != nil {
		return campaign.Campaign{}, fmt.Errorf("reading campaign: %w", err)
	}
	return c, nil
}

// ListCampaigns returns a page of live campaigns, newest first, and the
// total.
func (t *Tx) ListCampaigns(ctx context.Context, limit, offset int) ([]campaign.Campaign, int, error) {
	var total int
	if err := t.tx.QueryRow(ctx, "SELECT count(*) FROM campaigns WHERE deleted_at IS NULL").Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting campaigns: %w", err)
	}
	list, err := t.campaigns(ctx, " WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2", limit, offset)
	return list, total, err
}

// AssignableCampaigns returns the active published campaigns of direction
// d in the order rules are evaluated: highest priority first, oldest first.
func (t *Tx) AssignableCampaigns(ctx context.Context, d txn.Direction) ([]campaign.Campaign, error) {
	return t.campaigns(ctx, ` WHERE deleted_at IS NULL AND status = 'published' AND is_active AND direction = $1
 ORDER BY priority DESC, created_at, id`, d)
}

func (t *Tx) campaigns(ctx context.Context, tail string, args ...any) ([]campaign.Campaign, error) {
	rows, err := t.tx.Query(ctx, "SELECT "+campaignColumns+" FROM campaigns"+tail, args...)
	if err != nil {
		return nil, fmt.Errorf("listing campaigns: %w", err)
	}
	defer rows.Close()
	var out []campaign.Campaign
	for rows.Next() {
		c, err := scanCampaign(rows)
		if err != nil {
			return nil, fmt.Errorf("reading campaign: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
