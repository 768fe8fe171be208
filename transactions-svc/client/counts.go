package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/paylane/paylane/libs/svcclient"
)

// Count returns how many of the tenant's receivables or payables
// (direction "receivable" or "payable") are in status, through the public
// list route (GET /api/v1/receivables?status=...&per_page=1) and its
// meta.total: the token needs the list's view-any ability, and the list's
// tenant scope applies. An empty status counts every one.
func (c *Client) Count(ctx context.Context, token, direction, status string) (int, error) {
	var path string
	switch direction {
	case "receivable":
		path = "/api/v1/receivables"
	case "payable":
		path = "/api/v1/payables"
	default:
		return 0, fmt.Errorf("transactions client: unknown direction %q", direction)
	}
	q := url.Values{"per_page": {"1"}}
	if status != "" {
		q.Set("status", status)
	}
	var page struct {
		Meta struct {
			Total *int `json:"total"`
		} `json:"meta"`
	}
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path + "?" + q.Encode(), Auth: token,
		Timeout: DefaultTimeout}, &page); err != nil {
		return 0, err
	}
	if page.Meta.Total == nil {
		return 0, fmt.Errorf("transactions client: GET %s: answer has no meta.total", path)
	}
	return *page.Meta.Total, nil
}
