package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// MaxBulkItems is the most items one BulkCreate call takes; batch-svc sends
// a receivables or payables batch in chunks of at most this many.
const MaxBulkItems = 500

// Directions of a bulk create and of CampaignSteps.
const (
	DirectionReceivable = "receivable"
	DirectionPayable    = "payable"
)

// Duplicate policies of a bulk create: what a row whose own external_id
// names a live receivable or payable of the tenant, or an earlier row of
// the batch, does. The empty value means DuplicateUpdate.
const (
	DuplicateUpdate = "update"
	DuplicateSkip   = "skip"
	DuplicateFail   = "fail"
)

// Row actions of a bulk create.
const (
	ActionCreated = "created"
	ActionUpdated = "updated"
	ActionSkipped = "skipped"
	ActionFailed  = "failed"
)

// BulkCreateRequest is a chunk of a receivables or payables batch: Items[i]
// is row FirstRowIndex+i of batch BatchID. At most 500 items.
type BulkCreateRequest struct {
	BatchID       string `json:"batch_id"`
	Direction     string `json:"direction"`              // "receivable" or "payable"
	OnDuplicate   string `json:"on_duplicate,omitempty"` // update (default), skip, fail
	FirstRowIndex int    `json:"first_row_index"`
	// EmitEvents writes per-record <domain>.created / .updated (and
	// transaction.campaign_assigned): the batch option suppress_webhooks
	// false. The SMS requests of created items are written either way.
	EmitEvents bool `json:"emit_events,omitempty"`
	// CampaignID assigns every created item to this campaign, without rule
	// evaluation. When it is no longer active, published and of the
	// direction, every row that would create an item fails with an error on
	// campaign_id (updates and skips go ahead); only an id that is not a
	// valid identifier makes the whole call a 422 naming campaign_id.
	CampaignID string `json:"campaign_id,omitempty"`
	// AutoAssignCampaign evaluates the campaign rules per created item, as
	// a single create does. Neither option: no campaign.
	AutoAssignCampaign bool `json:"auto_assign_campaign,omitempty"`
	// Items are single-create bodies; the contact is named as
	// contact {external_id, first_name, last_name, phone, email} (found by
	// external_id, else created from it) or contact_id.
	Items []json.RawMessage `json:"items"`
}

// BulkRowResult is the outcome of one row of a bulk create.
type BulkRowResult struct {
	RowIndex int `json:"row_index"`
	// ID is the receivable or payable id (created, updated, skipped).
	ID string `json:"id,omitempty"`
	// Action is created, updated, skipped or failed.
	Action string `json:"action"`
	// Errors are the messages per field of a failed row; contact problems
	// are named contact.phone, contact.external_id, ...
	Errors map[string][]string `json:"errors,omitempty"`
}

// BulkCreate writes a chunk of a receivables or payables batch
// (POST /internal/v1/{receivables|payables}/bulk-create) and returns one
// result per item, in order. Every row's outcome is recorded under
// (BatchID, row index) in the transaction that writes it: rows already
// recorded are answered from the record, so retrying or resuming a chunk
// never writes a row twice. A bad item, or a campaign that stopped being
// assignable, is a failed row, not an error; an error is a refused chunk
// (an *Error: 422 for a bad envelope, 403 without the ability) or
// transactions-svc unavailable.
//
// The token is an internal token of the tenant with api:create-receivable
// (receivables) or api:create-payable (payables). transactions-svc forwards
// it to contacts-svc's bulk-upsert to find or create the items' contacts;
// contacts-svc's internal routes need no ability beyond a valid token of
// the tenant. The token must stay valid for the call (up to BulkTimeout).
func (c *Client) BulkCreate(ctx context.Context, token string, req BulkCreateRequest) ([]BulkRowResult, error) {
	var path string
	switch req.Direction {
	case DirectionReceivable:
		path = "/internal/v1/receivables/bulk-create"
	case DirectionPayable:
		path = "/internal/v1/payables/bulk-create"
	default:
		return nil, fmt.Errorf("transactions client: bulk create: direction %q is neither receivable nor payable", req.Direction)
	}
	var out []BulkRowResult
	if err := c.call(ctx, BulkTimeout, http.MethodPost, path, token, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CampaignSteps answers the submit-time messaging-volume check
// (GET /internal/v1/campaigns/steps): with campaignID, that campaign's step
// count (it must be active, published and of the direction, else a 422
// *Error whose Fields name campaign_id); otherwise with autoAssign, the
// largest step count among active published campaigns of the direction;
// otherwise 0. campaignID wins over autoAssign, as in BulkCreate. The token
// needs api:create-receivable or api:create-payable (the direction's).
func (c *Client) CampaignSteps(ctx context.Context, token, direction, campaignID string, autoAssign bool) (int, error) {
	v := url.Values{"direction": {direction}}
	if campaignID != "" {
		v.Set("campaign_id", campaignID)
	}
	if autoAssign {
		v.Set("auto_assign", strconv.FormatBool(autoAssign))
	}
	var out struct {
		Steps int `json:"steps"`
	}
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/campaigns/steps?"+v.Encode(), token, "", nil, &out); err != nil {
		return 0, err
	}
	return out.Steps, nil
}
