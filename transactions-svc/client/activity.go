package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Transition is one change of an item's status; From is empty for its
// creation.
type Transition struct {
	From string    `json:"from"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
}

// Message is an SMS asked for an item (those kept: 7 days) and its state
// as optin-svc reported it; Status is empty until the first report.
type Message struct {
	ID          string     `json:"id"`
	Kind        string     `json:"kind"`
	Status      string     `json:"status"`
	RequestedAt time.Time  `json:"requested_at"`
	SentAt      *time.Time `json:"sent_at"`
	UpdatedAt   *time.Time `json:"updated_at"`
}

// Activity is what happened to a receivable or payable: its state history,
// oldest first, and its messages.
type Activity struct {
	Transitions []Transition `json:"transitions"`
	Messages    []Message    `json:"messages"`
}

// Activity returns the state history and messages of the receivable or
// payable id (GET /internal/v1/{receivables|payables}/{id}/activity); the
// token needs the direction's view ability. An unknown id is ErrNotFound.
func (c *Client) Activity(ctx context.Context, token, direction, id string) (*Activity, error) {
	if _, err := itemsPath(direction); err != nil {
		return nil, err
	}
	var out Activity
	err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/"+direction+"s/"+url.PathEscape(id)+"/activity", token, "", nil, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// StatusSum is the count of a direction's items in one status and currency
// and the sum of their amounts (minor units).
type StatusSum struct {
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Count    int    `json:"count"`
	Amount   int64  `json:"amount"`
}

// Summary counts the tenant's receivables or payables created at or after
// since and sums their amounts per status and currency, in one call
// (GET /internal/v1/{receivables|payables}/summary); statuses without any
// are left out. The token needs the direction's view-any ability.
func (c *Client) Summary(ctx context.Context, token, direction string, since time.Time) ([]StatusSum, error) {
	if _, err := itemsPath(direction); err != nil {
		return nil, err
	}
	q := url.Values{"created_since": {since.UTC().Format(time.RFC3339Nano)}}
	var out []StatusSum
	err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/"+direction+"s/summary?"+q.Encode(), token, "", nil, &out)
	if err != nil {
		return nil, err
	}
	return out, nil
}
