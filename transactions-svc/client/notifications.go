package client

import (
	"context"
	"net/http"
	"net/url"
	"strings"
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

// MaxNotificationsByID is how many ids one Notifications call may name.
const MaxNotificationsByID = 100

// Notifications returns the tenant's notifications among ids (at most
// MaxNotificationsByID, in no particular order, each once) in one call
// (GET /internal/v1/notifications?ids=a,b,c): unknown, expired and other
// tenants' ids are left out. An empty list, too many ids or a malformed one
// is a 422 *Error on "ids"; a token without the view ability of a found
// notification's direction is 403. Unreachable, a 5xx or the breaker open
// are errors to retry.
func (c *Client) Notifications(ctx context.Context, token string, ids []string) ([]Notification, error) {
	var out []Notification
	path := "/internal/v1/notifications?" + url.Values{"ids": {strings.Join(ids, ",")}}.Encode()
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, path, token, "", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
