package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/paylane/paylane/libs/svcclient"
)

// Batches answers GET /api/v1/batches: a page of the tenant's batches,
// newest first. A type the token may not read is a 403 *Error; an unknown
// type or status a 422 naming it.
func (c *Client) Batches(ctx context.Context, token string, f Filters) (*BatchPage, error) {
	v := url.Values{}
	if f.Type != "" {
		v.Set("type", f.Type)
	}
	if f.Status != "" {
		v.Set("status", f.Status)
	}
	pageQuery(v, f.Page, f.PerPage)
	var out BatchPage
	if err := c.list(ctx, "/api/v1/batches", v, token, &out); err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []Batch{}
	}
	return &out, nil
}

// Batch answers GET /api/v1/batches/{batch}: the header. ErrNotFound when
// the tenant has no such batch; a 403 *Error when the token may not read
// its type.
func (c *Client) Batch(ctx context.Context, token, id string) (*Batch, error) {
	var out Batch
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: "/api/v1/batches/" + url.PathEscape(id),
		Auth: token}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Errors answers GET /api/v1/batches/{batch}/errors: a page of the batch's
// row errors in ascending row_index order, after the checks of Batch.
func (c *Client) Errors(ctx context.Context, token, id string, p Page) (*RowErrorPage, error) {
	v := url.Values{}
	pageQuery(v, p.Page, p.PerPage)
	var out RowErrorPage
	if err := c.list(ctx, "/api/v1/batches/"+url.PathEscape(id)+"/errors", v, token, &out); err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []RowError{}
	}
	return &out, nil
}

// list reads a collection ({data, links, meta}) at path with query v.
func (c *Client) list(ctx context.Context, path string, v url.Values, token string, out any) error {
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	return c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token}, out)
}

func pageQuery(v url.Values, page, perPage int) {
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		v.Set("per_page", strconv.Itoa(perPage))
	}
}
