package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/paylane/paylane/libs/breaker"
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
	path += "?" + q.Encode()
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	a, _, err := c.breakers.Do(breaker.TenantOf(token), func() (answer, int, error) {
		a, err := c.send(ctx, http.MethodGet, path, token, "", nil)
		return a, a.status, err
	})
	if errors.Is(err, breaker.ErrOpen) {
		return 0, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err != nil {
		return 0, err
	}
	if a.status != http.StatusOK {
		return 0, decodeError(a)
	}
	var page struct {
		Meta struct {
			Total *int `json:"total"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(a.body, &page); err != nil || page.Meta.Total == nil {
		return 0, fmt.Errorf("transactions client: GET %s: answer has no meta.total", path)
	}
	return *page.Meta.Total, nil
}
