package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// MaxBulkRows is the most rows one bulk create takes; batch-svc sends a
// receivables or payables batch in chunks of at most this many.
const MaxBulkRows = 500

// BulkRow is one item of a batch: its 0-based index in the batch, the
// fields of a single create and its contact object (nil when the item names
// contact_id, or no contact). Invalid carries the problems found while
// decoding the item (an unknown field, a wrong type); such a row fails with
// them.
type BulkRow struct {
	Index   int
	Input   txn.Input
	Contact *NewContact
	Invalid map[string][]string
}

// BulkRequest is a chunk of a receivables or payables batch.
type BulkRequest struct {
	BatchID     string
	Direction   txn.Direction
	OnDuplicate txn.OnDuplicate
	// EmitEvents writes <domain>.created / .updated (and
	// transaction.campaign_assigned, contact.created) per record: a batch
	// with suppress_webhooks false. The SMS requests are written either way.
	EmitEvents bool
	// CampaignID assigns every created item to this campaign without rule
	// evaluation; AutoAssignCampaign evaluates the rules per created item;
	// neither leaves created items without a campaign. CampaignID wins. A
	// CampaignID that is not an identifier refuses the chunk; one that names
	// no assignable campaign fails every row that would create an item.
	CampaignID         string
	AutoAssignCampaign bool
	Rows               []BulkRow
}

// BulkCreate writes a chunk of a batch in one transaction with a handful of
// set-based statements, never a statement per row. Each row is validated
// like Create; its contact is found or created through one contacts-svc
// bulk call (rows recorded there under the same batch id and row index, so
// a resumed chunk gets the same contacts). A row whose own external_id
// names a live item, or an earlier row of the batch, follows OnDuplicate
// (update applies the PUT rules). Created items are sent or scheduled as
// Create does. Every outcome is recorded under (BatchID, row index) in the
// same transaction: rows already recorded are answered from the record and
// not written again. The results follow the order of req.Rows.
//
// A CampaignID that no longer names an assignable campaign (archived,
// deactivated, deleted since batch-svc checked it at submit) is not the
// chunk's error but its rows': each row that would create an item fails on
// campaign_id, before its contact is asked for; updates and skips, which
// the campaign does not touch, go ahead.
func (a *App) BulkCreate(ctx context.Context, scope Scope, req BulkRequest) ([]txn.RowResult, error) {
	if err := validBulk(req); err != nil {
		return nil, err
	}
	indexes := make([]int, len(req.Rows))
	for i, r := range req.Rows {
		indexes[i] = r.Index
	}
	var results []txn.RowResult
	err := a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		if err := tx.LockBatch(ctx, req.BatchID); err != nil {
			return err
		}
		recorded, err := tx.BatchRows(ctx, req.BatchID, indexes)
		if err != nil {
			return err
		}
		fresh, err := a.createRows(ctx, tx, scope, req, recorded)
		if err != nil {
			return err
		}
		if err := tx.RecordBatchRows(ctx, req.BatchID, req.Direction, fresh); err != nil {
			return err
		}
		results = mergeRows(req.Rows, recorded, fresh)
		return nil
	})
	return results, err
}

// validBulk checks the envelope of a chunk.
func validBulk(req BulkRequest) error {
	p := verr.Problems{}
	if req.BatchID == "" || len(req.BatchID) > 64 {
		p.Add("batch_id", "The batch_id field is required (at most 64 characters).")
	}
	if !req.Direction.Valid() {
		p.Add("direction", "The direction must be receivable or payable.")
	}
	if !req.OnDuplicate.Valid() {
		p.Add("on_duplicate", "The selected on_duplicate is invalid (update, skip or fail).")
	}
	if req.CampaignID != "" && !ids.Valid(req.CampaignID) {
		// batch-svc's submit check refuses such an id, so only a broken
		// caller sends one: no state change could have made it so.
		p.Add("campaign_id", "The campaign_id must be a valid identifier.")
	}
	if len(req.Rows) == 0 || len(req.Rows) > MaxBulkRows {
		p.Add("items", fmt.Sprintf("The items field must have between 1 and %d items.", MaxBulkRows))
	}
	seen := make(map[int]bool, len(req.Rows))
	for _, r := range req.Rows {
		if r.Index < 0 || seen[r.Index] {
			p.Add("first_row_index", "The row indexes must be distinct and not negative.")
			break
		}
		seen[r.Index] = true
	}
	return p.Err()
}

// bulkEnv is what deciding and writing a chunk's rows needs besides the
// rows: the validation rules, and the campaign options resolved.
type bulkEnv struct {
	rules txn.Rules
	// direct is options.campaign_id's campaign; candidates are the
	// campaigns auto-assignment evaluates, in order.
	direct     *campaign.Campaign
	candidates []campaign.Campaign
	// unassignable: options.campaign_id names no campaign an item of the
	// direction may join, so rows that would create fail on campaign_id.
	unassignable bool
}

// loadEnv reads the tenant's field definitions and the chunk's campaigns.
// A campaign_id that names no active published campaign of the direction
// sets unassignable rather than refusing the chunk: batch-svc would end
// the batch failed, and the spec keeps failed for its machinery.
func (a *App) loadEnv(ctx context.Context, tx *store.Tx, scope Scope, req BulkRequest) (bulkEnv, error) {
	defs, err := tx.AllDefinitions(ctx)
	if err != nil {
		return bulkEnv{}, err
	}
	env := bulkEnv{rules: txn.Rules{Now: a.Now(), DefaultCurrency: scope.Currency, Definitions: fielddef.NewSet(defs)}}
	switch {
	case req.CampaignID != "":
		c, err := assignableCampaign(ctx, tx, req.CampaignID, req.Direction)
		switch {
		case errors.Is(err, campaign.ErrNotAssignable):
			env.unassignable = true
		case err != nil:
			return bulkEnv{}, err
		default:
			env.direct = &c
		}
	case req.AutoAssignCampaign:
		if env.candidates, err = tx.AssignableCampaigns(ctx, req.Direction); err != nil {
			return bulkEnv{}, err
		}
	}
	return env, nil
}

// assignableCampaign returns the campaign id names when a transaction of
// direction d may join it, else campaign.ErrNotAssignable.
func assignableCampaign(ctx context.Context, tx *store.Tx, id string, d txn.Direction) (campaign.Campaign, error) {
	if checkID(id) != nil {
		return campaign.Campaign{}, campaign.ErrNotAssignable
	}
	c, err := tx.Campaign(ctx, id, false)
	if errors.Is(err, campaign.ErrNotFound) {
		return campaign.Campaign{}, campaign.ErrNotAssignable
	}
	if err != nil {
		return campaign.Campaign{}, err
	}
	return c, c.Assignable(d)
}

// createRows decides and writes the rows not recorded yet, returning their
// outcomes.
func (a *App) createRows(ctx context.Context, tx *store.Tx, scope Scope, req BulkRequest,
	recorded map[int]txn.RowResult) ([]txn.RowResult, error) {
	if len(recorded) == len(req.Rows) {
		return nil, nil
	}
	env, err := a.loadEnv(ctx, tx, scope, req)
	if err != nil {
		return nil, err
	}
	rows, failed := validateRows(env.rules, req.Rows, recorded)
	var externalIDs []string
	for _, r := range rows {
		if r.fields.ExternalID != nil {
			externalIDs = append(externalIDs, *r.fields.ExternalID)
		}
	}
	existing, err := tx.LockByExternalIDs(ctx, req.Direction, externalIDs)
	if err != nil {
		return nil, err
	}
	p, err := a.settle(ctx, scope, req, env, rows, existing)
	if err != nil {
		return nil, err
	}
	if err := a.writePlan(ctx, tx, req, env, p); err != nil {
		return nil, err
	}
	return append(p.results, failed...), nil
}

// validateRows validates the rows not recorded yet like a single create;
// the others fail with their problems.
func validateRows(r txn.Rules, rows []BulkRow, recorded map[int]txn.RowResult) ([]validRow, []txn.RowResult) {
	valid := make([]validRow, 0, len(rows))
	var failed []txn.RowResult
	for _, row := range rows {
		if _, done := recorded[row.Index]; done {
			continue
		}
		problems := row.Invalid
		var f txn.Fields
		if len(problems) == 0 {
			var err error
			f, err = txn.ValidateBatchCreate(row.Input, r)
			var ve *verr.Error
			if errors.As(err, &ve) {
				problems = ve.Fields
			}
		}
		if len(problems) > 0 {
			failed = append(failed, txn.RowResult{RowIndex: row.Index, Action: txn.RowFailed, Errors: problems})
			continue
		}
		valid = append(valid, validRow{index: row.Index, in: row.Input, contact: row.Contact, fields: f})
	}
	return valid, failed
}

// mergeRows returns the outcomes in the order of rows.
func mergeRows(rows []BulkRow, recorded map[int]txn.RowResult, fresh []txn.RowResult) []txn.RowResult {
	byIndex := make(map[int]txn.RowResult, len(fresh))
	for _, r := range fresh {
		byIndex[r.RowIndex] = r
	}
	out := make([]txn.RowResult, 0, len(rows))
	for _, row := range rows {
		if r, ok := recorded[row.Index]; ok {
			out = append(out, r)
			continue
		}
		out = append(out, byIndex[row.Index])
	}
	return out
}
