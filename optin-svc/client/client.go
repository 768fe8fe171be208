// Package client is what other services import to call optin-svc: the
// opt-in status and consents of a contact, which contacts-svc shows on a
// single contact read.
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

// ErrUnavailable: the tenant's circuit breaker is open; optin-svc failed
// the tenant's calls repeatedly and is not called for the tenant for now.
var ErrUnavailable = errors.New("optin client: optin-svc unavailable")

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
	baseURL  string
	hc       *http.Client
	breakers *breaker.Set[answer]
}

// answer is a response read whole.
type answer struct {
	status    int
	requestID string
	body      []byte
}

// New returns a client of the optin-svc at baseURL (e.g.
// http://optin-svc:8080). A nil hc uses a client with a 5 s timeout.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), hc: hc,
		breakers: breaker.New[answer](breaker.Settings{Name: "optin-svc"})}
}

// Error is a non-2xx answer of optin-svc.
type Error struct {
	Status    int
	Code      string
	Message   string
	RequestID string
}

// StatusOf returns the HTTP status of an *Error in err's chain, or 0 (no
// answer: transport error, timeout, breaker open).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("optin-svc answered %d", e.Status)
	}
	return fmt.Sprintf("optin-svc answered %d %s: %s", e.Status, e.Code, e.Message)
}

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
	u := c.baseURL + "/internal/v1/contacts/" + url.PathEscape(contactID) + "/opt-in"
	if phone != "" {
		u += "?" + url.Values{"phone": {phone}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, fmt.Errorf("building opt-in status request: %w", err)
	}
	obs.Inject(ctx, req.Header)
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, "Bearer ") {
		token = "Bearer " + token
	}
	req.Header.Set("Authorization", token)
	req.Header.Set("Accept", "application/json")
	if id := reqid.From(ctx); id != "" {
		req.Header.Set(reqid.Header, id)
	}
	var out struct {
		Data struct {
			Status   string        `json:"status"`
			Consents []consentJSON `json:"consents"`
		} `json:"data"`
	}
	if err := c.send(req, breaker.TenantOf(token), &out); err != nil {
		return "", nil, fmt.Errorf("reading opt-in status: %w", err)
	}
	consents := make([]Consent, len(out.Data.Consents))
	for i, k := range out.Data.Consents {
		consents[i] = Consent{ID: k.ID, ContactID: k.ContactID, Status: k.Status, Channel: k.Channel,
			ConsentedAt: k.ConsentedAt, ConfirmedAt: k.ConfirmedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
		if k.OptInCodeID != nil {
			consents[i].OptInCodeID = *k.OptInCodeID
		}
	}
	return out.Data.Status, consents, nil
}

// send does req through tenant's breaker and decodes a 2xx answer into
// out; any other answer is an *Error.
func (c *Client) send(req *http.Request, tenant string, out any) error {
	a, _, err := c.breakers.Do(tenant, func() (answer, int, error) {
		resp, err := c.hc.Do(req)
		if err != nil {
			return answer{}, 0, fmt.Errorf("calling optin-svc: %w", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		if err != nil {
			return answer{}, 0, fmt.Errorf("reading optin-svc answer: %w", err)
		}
		return answer{status: resp.StatusCode, requestID: resp.Header.Get(reqid.Header), body: body}, resp.StatusCode, nil
	})
	if errors.Is(err, breaker.ErrOpen) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err != nil {
		return err
	}
	if a.status < 200 || a.status > 299 {
		e := &Error{Status: a.status, RequestID: a.requestID}
		var env struct {
			Error struct {
				Code      string `json:"code"`
				Message   string `json:"message"`
				RequestID string `json:"request_id"`
			} `json:"error"`
		}
		if json.Unmarshal(a.body, &env) == nil {
			e.Code, e.Message = env.Error.Code, env.Error.Message
			if env.Error.RequestID != "" {
				e.RequestID = env.Error.RequestID
			}
		}
		return e
	}
	if err := json.Unmarshal(a.body, out); err != nil {
		return fmt.Errorf("decoding optin-svc answer: %w", err)
	}
	return nil
}
