// Package peers holds optin-svc's clients of the other services it calls:
// contacts-svc (phone records, find-or-create by number) through its
// internal routes, with identity-svc's service tokens for calls made
// without a user's request.
package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// Tokens hands out internal JWTs for a tenant (identity-svc/client's
// ServiceToken).
type Tokens interface {
	ServiceToken(ctx context.Context, tenantID string, abilities []string) (string, error)
}

// contactAbilities are the abilities of optin-svc's service tokens for
// contacts-svc: reading and creating contacts.
var contactAbilities = []string{"api:view-any-contact", "api:view-contact", "api:create-contact"}

// Contacts calls contacts-svc's internal routes.
type Contacts struct {
	baseURL string
	hc      *http.Client
	tokens  Tokens
}

// NewContacts returns a client of the contacts-svc at baseURL; tokens
// supplies service tokens when the caller passes none. A nil hc uses a
// client with a 10 s timeout.
func NewContacts(baseURL string, tokens Tokens, hc *http.Client) *Contacts {
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Contacts{baseURL: strings.TrimRight(baseURL, "/"), hc: hc, tokens: tokens}
}

// PhoneNumber returns the E.164 number of the tenant's phone record
// phoneID (GET /internal/v1/phones/{phone}); an unknown record wraps
// optin.ErrUnknownPhone.
func (c *Contacts) PhoneNumber(ctx context.Context, tenantID, token, phoneID string) (string, error) {
	var out struct {
		Data struct {
			ID    string `json:"id"`
			Phone string `json:"phone"`
		} `json:"data"`
	}
	_, err := c.call(ctx, tenantID, token, http.MethodGet, "/internal/v1/phones/"+url.PathEscape(phoneID), nil, &out)
	var pe *PeerError
	if errors.As(err, &pe) && pe.Status == http.StatusNotFound && pe.Code == "resource_not_found" {
		return "", fmt.Errorf("%w: %w", optin.ErrUnknownPhone, err)
	}
	if err != nil {
		return "", fmt.Errorf("looking up contact phone: %w", err)
	}
	return out.Data.Phone, nil
}

// FindOrCreateByPhone returns the id of the tenant's live contact with the
// number, creating one when there is none. Two callers racing on one number
// both end with the contact one of them created.
func (c *Contacts) FindOrCreateByPhone(ctx context.Context, tenantID, token, e164 string) (string, error) {
	for attempt := 0; ; attempt++ {
		id, err := c.findByPhone(ctx, tenantID, token, e164)
		if err != nil || id != "" {
			return id, err
		}
		var out struct {
			Data struct {
				Contact struct {
					ID string `json:"id"`
				} `json:"contact"`
			} `json:"data"`
		}
		_, err = c.call(ctx, tenantID, token, http.MethodPost, "/internal/v1/contacts/find-or-create",
			map[string]string{"phone": e164}, &out)
		var pe *PeerError
		if attempt == 0 && errors.As(err, &pe) && pe.Status == http.StatusUnprocessableEntity {
			continue // another request created the contact in between: find it
		}
		if err != nil {
			return "", fmt.Errorf("creating contact: %w", err)
		}
		return out.Data.Contact.ID, nil
	}
}

// findByPhone returns the id of the live contact with the number, or "".
func (c *Contacts) findByPhone(ctx context.Context, tenantID, token, e164 string) (string, error) {
	var out struct {
		Data []struct {
			ContactID string `json:"contact_id"`
		} `json:"data"`
	}
	q := url.Values{"phone": {e164}, "limit": {"1"}}
	if _, err := c.call(ctx, tenantID, token, http.MethodGet, "/internal/v1/contacts/search?"+q.Encode(), nil, &out); err != nil {
		return "", fmt.Errorf("searching contact by phone: %w", err)
	}
	if len(out.Data) == 0 {
		return "", nil
	}
	return out.Data[0].ContactID, nil
}

// PeerError is a non-2xx answer of contacts-svc.
type PeerError struct {
	Status int
	Code   string
}

func (e *PeerError) Error() string {
	return fmt.Sprintf("contacts-svc answered %d %s", e.Status, e.Code)
}

// call sends one request with the caller's token (or a service token) and
// decodes a 2xx answer into out.
func (c *Contacts) call(ctx context.Context, tenantID, token, method, path string, body, out any) (int, error) {
	if token == "" {
		var err error
		if token, err = c.tokens.ServiceToken(ctx, tenantID, contactAbilities); err != nil {
			return 0, fmt.Errorf("getting a service token: %w", err)
		}
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("encoding request: %w", err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, r)
	if err != nil {
		return 0, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := reqid.From(ctx); id != "" {
		req.Header.Set(reqid.Header, id)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("calling contacts-svc: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("reading contacts-svc answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var env struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &env)
		return resp.StatusCode, &PeerError{Status: resp.StatusCode, Code: env.Error.Code}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return resp.StatusCode, fmt.Errorf("decoding contacts-svc answer: %w", err)
	}
	return resp.StatusCode, nil
}
