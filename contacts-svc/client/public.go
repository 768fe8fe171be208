package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/paylane/paylane/libs/svcclient"
)

// The tenant dashboard reads contacts through the public routes
// (GET /api/v1/contacts and GET /api/v1/contacts/{contact}) with the
// signed-in user's internal token, so the API's gates (api:view-any-contact,
// api:view-contact), validation and tenant scope apply unchanged.

// ListQuery selects a page of GET /api/v1/contacts: Phone (any format, read
// in the tenant's region) and ExternalID filter exactly; WithTrashed adds
// soft-deleted contacts. Page and PerPage 0 use the service's defaults
// (page 1, 25 per page).
type ListQuery struct {
	Phone, ExternalID string
	WithTrashed       bool
	Page, PerPage     int
}

// Meta describes where a page sits in its collection.
type Meta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
	// TotalIsEstimate: more rows match than a list counts exactly and
	// Total is an estimate (libs/listtotal).
	TotalIsEstimate bool `json:"total_is_estimate,omitempty"`
}

// ContactPage is a page of contacts.
type ContactPage struct {
	Data []Contact `json:"data"`
	Meta Meta      `json:"meta"`
}

// List answers GET /api/v1/contacts: a page of the tenant's contacts. A
// refused filter (a phone that is not a number) is a 422 *Error naming it.
func (c *Client) List(ctx context.Context, token string, q ListQuery) (*ContactPage, error) {
	v := url.Values{}
	if q.Phone != "" {
		v.Set("phone", q.Phone)
	}
	if q.ExternalID != "" {
		v.Set("external_id", q.ExternalID)
	}
	if q.WithTrashed {
		v.Set("with_trashed", "1")
	}
	if q.Page > 0 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.PerPage > 0 {
		v.Set("per_page", strconv.Itoa(q.PerPage))
	}
	path := "/api/v1/contacts"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out ContactPage
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token, Timeout: DefaultTimeout}, &out); err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []Contact{}
	}
	return &out, nil
}

// Show answers GET /api/v1/contacts/{contact}: the single read, with
// OptInStatus and Consents; withTrashed reads a soft-deleted contact too.
// ErrNotFound when the tenant has no such contact.
func (c *Client) Show(ctx context.Context, token, id string, withTrashed bool) (*Contact, error) {
	path := "/api/v1/contacts/" + url.PathEscape(id)
	if withTrashed {
		path += "?with_trashed=1"
	}
	var out Contact
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, path, token, "", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
