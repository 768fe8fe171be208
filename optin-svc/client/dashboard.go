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

// Code is an opt-in code: its landing page URL (what its QR code encodes),
// whether the page takes consents (IsLive), whether it is the tenant's
// default, and its scan and opt-in counts.
type Code struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	IsLive      bool      `json:"is_live"`
	IsDefault   bool      `json:"is_default"`
	DoubleOptIn bool      `json:"double_opt_in"`
	ScanCount   int64     `json:"scan_count"`
	OptInCount  int64     `json:"opt_in_count"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// CodeInput is a code to create. Nil IsDefault makes the tenant's first
// code its default; nil DoubleOptIn means false, nil IsLive true.
type CodeInput struct {
	Name        string `json:"name"`
	IsDefault   *bool  `json:"is_default,omitempty"`
	DoubleOptIn *bool  `json:"double_opt_in,omitempty"`
	IsLive      *bool  `json:"is_live,omitempty"`
}

// Meta is where a page sits in its collection.
type Meta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
	// TotalIsEstimate: more rows match than a list counts exactly and
	// Total is an estimate (libs/listtotal).
	TotalIsEstimate bool `json:"total_is_estimate,omitempty"`
}

// ListOptions pick a page of a list: 0 means the first page, and the
// service's default size.
type ListOptions struct {
	Page, PerPage int
}

func (o ListOptions) values() url.Values {
	v := url.Values{}
	if o.Page > 0 {
		v.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		v.Set("per_page", strconv.Itoa(o.PerPage))
	}
	return v
}

// CodeQuery filters the codes: Active "true" or "false" filters on
// is_live, "" does not.
type CodeQuery struct {
	ListOptions
	Active string
}

// CodePage is a page of codes: the default code first, then newest first.
type CodePage struct {
	Data []Code `json:"data"`
	Meta Meta   `json:"meta"`
}

// ConsentCounts are how many consents of a code are in each status.
type ConsentCounts struct {
	Confirmed int `json:"confirmed"`
	Pending   int `json:"pending"`
	Revoked   int `json:"revoked"`
}

// ConsentQuery filters the consents (GET /api/v1/opt-ins); "" does not
// filter.
type ConsentQuery struct {
	ListOptions
	Status, OptInCodeID, ContactID string
}

// ConsentPage is a page of consents, newest consented_at first.
type ConsentPage struct {
	Data []Consent
	Meta Meta
}

// Suppression is a suppression list entry: the number only by its last
// four digits.
type Suppression struct {
	ID             string    `json:"id"`
	PhoneLast4     string    `json:"phone_last4"`
	ContactPhoneID *string   `json:"contact_phone_id"`
	Reason         string    `json:"reason"`
	Channel        string    `json:"channel"`
	Source         string    `json:"source"`
	CreatedAt      time.Time `json:"created_at"`
}

// SuppressionInput is an entry to add: the contacts-svc phone record id of
// the number, the reason (manual, bounce, complaint) and the channel (""
// means sms).
type SuppressionInput struct {
	ContactPhoneID string `json:"contact_phone_id"`
	Reason         string `json:"reason"`
	Channel        string `json:"channel,omitempty"`
}

// SuppressionPage is a page of the sms suppression list, newest first.
type SuppressionPage struct {
	Data []Suppression `json:"data"`
	Meta Meta          `json:"meta"`
}

// with returns path with the query v, if any.
func with(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// Codes returns a page of the tenant's opt-in codes (GET
// /api/v1/opt-in-codes, api:view-any-opt-in-code). token is the caller's
// internal token.
func (c *Client) Codes(ctx context.Context, token string, q CodeQuery) (*CodePage, error) {
	v := q.values()
	if q.Active != "" {
		v.Set("active", q.Active)
	}
	var out CodePage
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: with("/api/v1/opt-in-codes", v), Auth: token}, &out); err != nil {
		return nil, fmt.Errorf("listing opt-in codes: %w", err)
	}
	return &out, nil
}

// Code returns one opt-in code (404 when the tenant has none with id).
func (c *Client) Code(ctx context.Context, token, id string) (*Code, error) {
	var out Code
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: "/api/v1/opt-in-codes/" + url.PathEscape(id), Auth: token}, &out); err != nil {
		return nil, fmt.Errorf("reading opt-in code: %w", err)
	}
	return &out, nil
}

// CreateCode creates an opt-in code for the tenant of token
// (api:create-opt-in-code); idempotencyKey, when not empty, is sent as
// Idempotency-Key. A refused name is a 422 *Error.
func (c *Client) CreateCode(ctx context.Context, token, idempotencyKey string, in CodeInput) (*Code, error) {
	var out Code
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: "/internal/v1/opt-in-codes", Auth: token,
		IdempotencyKey: idempotencyKey, Body: in}, &out); err != nil {
		return nil, fmt.Errorf("creating opt-in code: %w", err)
	}
	return &out, nil
}

// ConsentCounts returns, per code id, how many of the code's consents are
// confirmed, pending and revoked (api:view-any-opt-in-code); codes without
// consents are absent.
func (c *Client) ConsentCounts(ctx context.Context, token string) (map[string]ConsentCounts, error) {
	out := map[string]ConsentCounts{}
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodGet, Path: "/internal/v1/opt-in-codes/consent-counts", Auth: token}, &out); err != nil {
		return nil, fmt.Errorf("counting consents: %w", err)
	}
	return out, nil
}

// Consents returns a page of the tenant's consents (GET /api/v1/opt-ins,
// api:view-any-opt-in-code).
func (c *Client) Consents(ctx context.Context, token string, q ConsentQuery) (*ConsentPage, error) {
	v := q.values()
	for k, s := range map[string]string{"status": q.Status, "opt_in_code_id": q.OptInCodeID, "contact_id": q.ContactID} {
		if s != "" {
			v.Set(k, s)
		}
	}
	var out struct {
		Data []consentJSON `json:"data"`
		Meta Meta          `json:"meta"`
	}
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: with("/api/v1/opt-ins", v), Auth: token}, &out); err != nil {
		return nil, fmt.Errorf("listing consents: %w", err)
	}
	page := &ConsentPage{Data: make([]Consent, len(out.Data)), Meta: out.Meta}
	for i, k := range out.Data {
		page.Data[i] = k.consent()
	}
	return page, nil
}

// Suppressions returns a page of the tenant's sms suppression list (GET
// /api/v1/suppression-list, api:view-any-suppression).
func (c *Client) Suppressions(ctx context.Context, token string, o ListOptions) (*SuppressionPage, error) {
	var out SuppressionPage
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: with("/api/v1/suppression-list", o.values()), Auth: token}, &out); err != nil {
		return nil, fmt.Errorf("listing suppressions: %w", err)
	}
	return &out, nil
}

// AddSuppression adds the number of a phone record to the suppression list
// (POST /api/v1/suppression-list, api:create-suppression) and returns the
// entry, or the number's entry when it was on the list already.
// idempotencyKey, when not empty, is sent as Idempotency-Key.
func (c *Client) AddSuppression(ctx context.Context, token, idempotencyKey string, in SuppressionInput) (*Suppression, error) {
	var out Suppression
	if err := c.core.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: "/api/v1/suppression-list", Auth: token,
		IdempotencyKey: idempotencyKey, Body: in}, &out); err != nil {
		return nil, fmt.Errorf("adding suppression: %w", err)
	}
	return &out, nil
}

// RemoveSuppression lifts the entry with id (api:delete-suppression): 404
// when the tenant has none, 422 when only the recipient's START may lift it.
// idempotencyKey, when not empty, is sent as Idempotency-Key: a repeated
// removal with it succeeds as the first did.
func (c *Client) RemoveSuppression(ctx context.Context, token, idempotencyKey, id string) error {
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodDelete,
		Path: "/internal/v1/suppression-list/entries/" + url.PathEscape(id), Auth: token, IdempotencyKey: idempotencyKey}, nil); err != nil {
		return fmt.Errorf("removing suppression: %w", err)
	}
	return nil
}

// consent converts a consent on the wire.
func (k consentJSON) consent() Consent {
	out := Consent{ID: k.ID, ContactID: k.ContactID, Status: k.Status, Channel: k.Channel,
		ConsentedAt: k.ConsentedAt, ConfirmedAt: k.ConfirmedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
	if k.OptInCodeID != nil {
		out.OptInCodeID = *k.OptInCodeID
	}
	return out
}
