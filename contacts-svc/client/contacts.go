package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Contact returns the contact with id, live or soft-deleted (see
// Contact.Live); ErrNotFound when the tenant has none.
func (c *Client) Contact(ctx context.Context, token, id string) (*Contact, error) {
	var out Contact
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/contacts/"+url.PathEscape(id), token, "", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MaxByID is how many ids one ByID call may name.
const MaxByID = 100

// ByID returns the tenant's contacts among ids (at most MaxByID; live and
// soft-deleted, in no particular order), in one call: ids the tenant does
// not hold are left out. An empty list, too many ids or a malformed one is
// a 422 *Error on "ids". The caller applies its own ability gate.
func (c *Client) ByID(ctx context.Context, token string, ids []string) ([]Contact, error) {
	var out []Contact
	path := "/internal/v1/contacts/by-id?" + url.Values{"ids": {strings.Join(ids, ",")}}.Encode()
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, path, token, "", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// FindOrCreate returns the live contact with in.ExternalID (created false,
// the other fields of in are not applied), or creates one from in with the
// validation of POST /api/v1/contacts (created true). Without an external
// id it always creates. A refused contact is an *Error whose Fields name the
// problems (for example phone taken by another live contact).
// idempotencyKey, when not empty, is forwarded as Idempotency-Key.
func (c *Client) FindOrCreate(ctx context.Context, token string, in ContactInput, idempotencyKey string) (*Contact, bool, error) {
	var out struct {
		Contact Contact `json:"contact"`
		Created bool    `json:"created"`
	}
	if err := c.call(ctx, DefaultTimeout, http.MethodPost, "/internal/v1/contacts/find-or-create", token, idempotencyKey, in, &out); err != nil {
		return nil, false, err
	}
	return &out.Contact, out.Created, nil
}

// BulkUpsert writes a chunk of a contacts batch and returns one result per
// item, in order. Rows already written under (BatchID, row index) are
// answered from the record, so retrying a chunk never writes twice.
func (c *Client) BulkUpsert(ctx context.Context, token string, req BulkUpsertRequest) ([]RowResult, error) {
	var out []RowResult
	if err := c.call(ctx, BulkTimeout, http.MethodPost, "/internal/v1/contacts/bulk-upsert", token, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// BulkUpsertRaw is BulkUpsert for items kept as the client sent them
// (batch-svc stores a batch's raw items): contacts-svc decodes each item
// and reports an item it cannot read (an unknown field, a wrong type) as
// that row's errors instead of failing the call.
func (c *Client) BulkUpsertRaw(ctx context.Context, token string, req BulkUpsertRawRequest) ([]RowResult, error) {
	var out []RowResult
	if err := c.call(ctx, BulkTimeout, http.MethodPost, "/internal/v1/contacts/bulk-upsert", token, "", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Search returns live contacts matching q, best first.
func (c *Client) Search(ctx context.Context, token string, q SearchQuery) ([]Candidate, error) {
	v := url.Values{}
	for k, s := range map[string]string{"name": q.Name, "phone": q.Phone, "email": q.Email} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out []Candidate
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/contacts/search?"+v.Encode(), token, "", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Phone returns the phone record with id (a contact's PhoneID), whatever
// became of the contacts that had it; ErrNotFound when the tenant has none.
func (c *Client) Phone(ctx context.Context, token, id string) (*PhoneRecord, error) {
	var out PhoneRecord
	if err := c.call(ctx, DefaultTimeout, http.MethodGet, "/internal/v1/phones/"+url.PathEscape(id), token, "", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
