package peers

import (
	"context"
	"fmt"

	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// Transactions writes receivables and payables batches through
// transactions-svc's bulk create, and counts campaign steps for the
// submit-time messaging-volume check.
type Transactions struct {
	client *transactions.Client
	tokens Tokens
}

// NewTransactions returns the receivables and payables writer.
func NewTransactions(client *transactions.Client, tokens Tokens) *Transactions {
	return &Transactions{client: client, tokens: tokens}
}

// direction is transactions-svc's name of a batch type.
func direction(t batch.Type) string {
	if t == batch.Payables {
		return transactions.DirectionPayable
	}
	return transactions.DirectionReceivable
}

// Write implements app.Writer.
func (p *Transactions) Write(ctx context.Context, tenantID string, req app.WriteRequest) ([]app.RowResult, error) {
	token, err := p.tokens.ServiceToken(ctx, tenantID, []string{req.Type.CreateAbility()})
	if err != nil {
		return nil, fmt.Errorf("getting a service token: %w", classifyToken(err))
	}
	in := transactions.BulkCreateRequest{
		BatchID: req.BatchID, Direction: direction(req.Type), OnDuplicate: string(req.Options.OnDuplicate),
		FirstRowIndex: req.FirstRowIndex, EmitEvents: req.EmitEvents, Items: req.Items,
	}
	if req.Options.CampaignID != nil {
		in.CampaignID = *req.Options.CampaignID
	}
	if req.Options.AutoAssignCampaign != nil {
		in.AutoAssignCampaign = *req.Options.AutoAssignCampaign
	}
	rows, err := p.client.BulkCreate(ctx, token, in)
	if err != nil {
		return nil, fmt.Errorf("bulk create: %w", classify(err))
	}
	out := make([]app.RowResult, len(rows))
	for i, r := range rows {
		out[i] = app.RowResult{RowIndex: r.RowIndex, Failed: r.Action == transactions.ActionFailed, Errors: r.Errors}
	}
	return out, nil
}

// CampaignSteps implements app.Campaigns with the submitter's own token
// (it holds the type's create ability: the route's gate). A campaign
// transactions-svc refuses is a validation error naming
// options.campaign_id; transactions-svc not answering is
// batch.ErrUnavailable.
func (p *Transactions) CampaignSteps(ctx context.Context, token string, t batch.Type, campaignID string, autoAssign bool) (int, error) {
	steps, err := p.client.CampaignSteps(ctx, token, direction(t), campaignID, autoAssign)
	if err == nil {
		return steps, nil
	}
	var te *transactions.Error
	if asError(err, &te) && te.Status == 422 {
		msgs := te.Fields()["campaign_id"]
		if len(msgs) == 0 {
			msgs = []string{"The selected campaign is invalid."}
		}
		return 0, &batch.ValidationError{Fields: map[string][]string{"options.campaign_id": msgs}}
	}
	if status := transactions.StatusOf(err); status >= 400 && status < 500 {
		return 0, fmt.Errorf("counting campaign steps: %w", err)
	}
	return 0, fmt.Errorf("%w: counting campaign steps: %w", batch.ErrUnavailable, err)
}
