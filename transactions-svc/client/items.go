package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// Item is a receivable or payable as GET /api/v1/{receivables|payables}/{id}
// shows it: the fields of both directions (those of the other direction
// stay zero). Amount is in minor units of Currency.
type Item struct {
	ID            string         `json:"id"`
	TransactionID string         `json:"transaction_id"`
	ContactID     string         `json:"contact_id"`
	ExternalID    *string        `json:"external_id"`
	Amount        int64          `json:"amount"`
	Currency      string         `json:"currency"`
	Description   *string        `json:"description"`
	DueDate       *string        `json:"due_date"` // YYYY-MM-DD
	Status        string         `json:"status"`
	LinkExpiresAt *time.Time     `json:"link_expires_at"`
	SendAt        *time.Time     `json:"send_at"`
	CampaignID    *string        `json:"campaign_id"`
	FailureReason *string        `json:"failure_reason"`
	LatestMessage *LatestMessage `json:"latest_message"`
	Rail          string         `json:"rail"`
	// Receivables only.
	PaidAt        *time.Time `json:"paid_at"`
	PaymentMethod *string    `json:"payment_method"`
	// Payables only.
	DisbursedAt *time.Time   `json:"disbursed_at"`
	Destination *Destination `json:"destination"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
}

// Destination is a payable's payout destination: its type and the last four
// digits of its number.
type Destination struct {
	Type  string `json:"type"`
	Last4 string `json:"last4"`
}

// ListOptions filter and page a list of receivables or payables (the query
// parameters of GET /api/v1/{receivables|payables}); zero values do not
// filter.
type ListOptions struct {
	Status     string
	ContactID  string
	ExternalID string
	// CreatedSince keeps the items created at or after it.
	CreatedSince *time.Time
	Page         int
	PerPage      int
}

// ItemPage is a page of a list, newest first.
type ItemPage struct {
	Items    []Item
	Page     int
	PerPage  int
	Total    int
	LastPage int
	// TotalIsEstimate: more items match than a list counts exactly and
	// Total is an estimate (libs/listtotal).
	TotalIsEstimate bool
}

// Lifecycle actions of Act (POST /api/v1/{receivables|payables}/{id}/<action>).
const (
	ActionCancel             = "cancel"
	ActionResendNotification = "resend-notification"
	ActionExpire             = "expire"
)

// itemsPath is the public path of a direction's items.
func itemsPath(direction string) (string, error) {
	switch direction {
	case DirectionReceivable:
		return "/api/v1/receivables", nil
	case DirectionPayable:
		return "/api/v1/payables", nil
	}
	return "", fmt.Errorf("transactions client: unknown direction %q", direction)
}

// List returns a page of the tenant's receivables or payables (direction)
// matching opts, newest first, through the public list route: the token
// needs the direction's view-any ability; a bad filter is a 422 *Error.
func (c *Client) List(ctx context.Context, token, direction string, opts ListOptions) (*ItemPage, error) {
	path, err := itemsPath(direction)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for k, v := range map[string]string{"status": opts.Status, "contact_id": opts.ContactID, "external_id": opts.ExternalID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if opts.CreatedSince != nil {
		q.Set("created_since", opts.CreatedSince.UTC().Format(time.RFC3339Nano))
	}
	if opts.Page > 0 {
		q.Set("page", strconv.Itoa(opts.Page))
	}
	if opts.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(opts.PerPage))
	}
	var body struct {
		Data []Item `json:"data"`
		Meta struct {
			CurrentPage int `json:"current_page"`
			PerPage     int `json:"per_page"`
			Total       int `json:"total"`
			LastPage    int `json:"last_page"`
			// TotalIsEstimate is set above the list's cap (libs/listtotal).
			TotalIsEstimate bool `json:"total_is_estimate"`
		} `json:"meta"`
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token, Timeout: DefaultTimeout}, &body); err != nil {
		return nil, err
	}
	return &ItemPage{Items: body.Data, Page: body.Meta.CurrentPage, PerPage: body.Meta.PerPage, Total: body.Meta.Total,
		LastPage: body.Meta.LastPage, TotalIsEstimate: body.Meta.TotalIsEstimate}, nil
}

// Item returns the tenant's receivable or payable id (the token needs the
// direction's view ability); an unknown id is ErrNotFound.
func (c *Client) Item(ctx context.Context, token, direction, id string) (*Item, error) {
	path, err := itemsPath(direction)
	if err != nil {
		return nil, err
	}
	var out Item
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, path+"/"+url.PathEscape(id), token, "", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Act runs a lifecycle action (ActionCancel, ActionResendNotification,
// ActionExpire) on the receivable or payable id through its public route,
// with the route's gate, state machine, events and webhooks, and returns
// the item after it. idempotencyKey, when not empty, is the Idempotency-Key:
// a repeated key answers the first result. A refused transition is an
// *Error (409, or 422 invalid_transition).
func (c *Client) Act(ctx context.Context, token, direction, id, action, idempotencyKey string) (*Item, error) {
	path, err := itemsPath(direction)
	if err != nil {
		return nil, err
	}
	switch action {
	case ActionCancel, ActionResendNotification, ActionExpire:
	default:
		return nil, fmt.Errorf("transactions client: unknown action %q", action)
	}
	var out Item
	err = c.call(ctx, DefaultTimeout, http.MethodPost, path+"/"+url.PathEscape(id)+"/"+action, token, idempotencyKey, struct{}{}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
