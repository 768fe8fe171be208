// Package client is what other services import to call optin-svc: the
// opt-in status and consents of a contact, which contacts-svc shows on a
// single contact read, and the opt-in codes, consents and suppression list
// the tenant dashboard shows and edits (dashboard.go).
//
// Calls go through a circuit breaker per tenant (libs/breaker, the tenant
// of the token): after five consecutive failures of a tenant's calls
// (transport errors, timeouts and 5xx answers other than 501 and 505;
// never a 4xx, which is returned as the *Error it is) that tenant's calls
// fail fast with ErrUnavailable for 10 s; other tenants' calls are not
// affected.
package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// ErrUnavailable: the tenant's circuit breaker is open; optin-svc failed
// the tenant's calls repeatedly and is not called for the tenant for now.
var ErrUnavailable = svcclient.ErrUnavailable

// Opt-in statuses of a contact (contract section 10).
const (
	StatusNone     = "none"
	StatusPending  = "pending"
	StatusOptedIn  = "opted_in"
	StatusOptedOut = "opted_out"
)

// Consent is one SMS opt-in consent of a contact.
type Consent struct {
	ID        string
	ContactID string
	// OptInCodeID is the code whose landing page took the consent, "" for
	// a consent given by an inbound YES.
	OptInCodeID string
	// Status is pending, confirmed or revoked.
	Status      string
	Channel     string
	ConsentedAt *time.Time
	ConfirmedAt *time.Time
	RevokedAt   *time.Time
	CreatedAt   time.Time
}

// Client calls optin-svc's internal routes. It is safe for concurrent
// use; share one per process.
type Client struct {
	core *svcclient.Client
}

// New returns a client of the optin-svc at baseURL (e.g.
// http://optin-svc:8080). A nil hc uses a default client; each call has a
// 5 s timeout unless ctx has an earlier deadline.
func New(baseURL string, hc *http.Client) *Client {
	return &Client{core: svcclient.New(svcclient.Config{Service: "optin-svc", BaseURL: baseURL, HTTP: hc,
		Timeout: 5 * time.Second, Breaker: true})}
}

// Error is a non-2xx answer of optin-svc.
type Error = svcclient.Error

// StatusOf returns the HTTP status of an *Error in err's chain, or 0 (no
// answer: transport error, timeout, breaker open).
func StatusOf(err error) int { return svcclient.StatusOf(err) }

// consentJSON is a consent on the wire.
type consentJSON struct {
	ID          string     `json:"id"`
	ContactID   string     `json:"contact_id"`
	OptInCodeID *string    `json:"opt_in_code_id"`
	Status      string     `json:"status"`
	Channel     string     `json:"channel"`
	ConsentedAt *time.Time `json:"consented_at"`
	ConfirmedAt *time.Time `json:"confirmed_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// OptInStatus returns the opt-in status of a contact (none, pending,
// opted_in, opted_out) and the consents of the contact or its number,
// newest first. token is the internal JWT of the request being served (the
// value of its Authorization header, with or without "Bearer "); phone is
// the contact's number in E.164 ("" when unknown: then a suppression of the
// number cannot be seen). The request id of ctx (reqid) travels along.
func (c *Client) OptInStatus(ctx context.Context, token, contactID, phone string) (string, []Consent, error) {
	path := "/internal/v1/contacts/" + url.PathEscape(contactID) + "/opt-in"
	if phone != "" {
		path += "?" + url.Values{"phone": {phone}}.Encode()
	}
	var out struct {
		Data struct {
			Status   string        `json:"status"`
			Consents []consentJSON `json:"consents"`
		} `json:"data"`
	}
	if err := c.core.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: path, Auth: token}, &out); err != nil {
		return "", nil, fmt.Errorf("reading opt-in status: %w", err)
	}
	consents := make([]Consent, len(out.Data.Consents))
	for i, k := range out.Data.Consents {
		consents[i] = k.consent()
	}
	return out.Data.Status, consents, nil
}
