package client

import (
	"context"
	"net/http"
	"net/url"
)

// NotificationAbilities are the abilities a token needs to read any
// notification: the view ability of each direction (a notification needs
// the one of its receivable's or payable's direction).
var NotificationAbilities = []string{"api:view-receivable", "api:view-payable"}

// Notification is an SMS transactions-svc asked for: the number and text
// that its notification.requested event, which carries only ids, leaves
// out. Body may hold a signed payment or payout link: never log it.
type Notification struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// To is the recipient's E.164 number.
	To   string `json:"to"`
	Body string `json:"body"`
}

// Notification returns the tenant's notification id
// (GET /internal/v1/notifications/{id}). An unknown id, another tenant's,
// or one past its retention (7 days) is ErrNotFound; transactions-svc
// unreachable, a 5xx or the breaker open are errors to retry.
func (c *Client) Notification(ctx context.Context, token, id string) (*Notification, error) {
	var out Notification
	err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/notifications/"+url.PathEscape(id), token, "", nil, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
